"""The ledger that charges a case's time (engine/ledger.py)."""
from perflab.engine.ledger import Ledger


def test_starts_count_against_the_budget_and_the_launch_cost_stages_against_the_budget_only():
    led = Ledger()
    led.charge_start(0.3)  # its share of starting processes side by side
    led.charge(0.2)  # setup and warmup stages, timed as they ran
    led.launches_prepared(0.25, 2)  # preparing two launches took 0.25 s (the stages already charged)
    led.charge(0.01)
    led.round_iteration(0.012)  # a round iteration: 10 ms timed, 2 ms of perflab's own around it
    assert abs(led.spent - 0.51) < 1e-12
    c_launch, c_iteration = led.costs()
    assert abs(c_launch - 0.55 / 2) < 1e-12 and abs(c_iteration - 0.012) < 1e-12


def test_no_launch_and_no_round_cost_nothing_yet():
    assert Ledger().costs() == (0.0, 0.0)
