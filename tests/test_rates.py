"""Throughput and rate counters as columns (report/rates.py): a worker's `diagnostics.rates` (criterion's
Throughput, Google Benchmark's SetBytesProcessed/SetItemsProcessed and kIsRate counters) is a quantity per
op; the table, the CSV and the results document show it per second against the case's own mean. Through
the engine with fake workers (deterministic per-call costs), so the expected rates follow from the means."""
import json
import random

import pytest

from perflab.analysis import analyse
from perflab.engine.runner import Engine
from perflab.jobs import get_job
from perflab.model import Benchmark, Case, ParamAxis, Runtime
from perflab.report import rates
from perflab.report.exporters import to_csv
from perflab.report.table import build_tables
from perflab.results import case_result_from_json, document

from fakes import FakeClock, FakeWorker

RATES = {"Throughput": {"per_op": 1024.0, "unit": "B", "base": 1024, "invert": False},
         "items_per_second": {"per_op": 2.0, "unit": "", "base": 1000, "invert": False},
         "ns_per_item": {"per_op": 4.0, "unit": "item", "base": 1000, "invert": True}}


class RatedWorker(FakeWorker):
    """A fake worker whose diagnostics carry rates and a plain counter (as the C++ worker's do)."""

    def __init__(self, *a, rates_reply=None, **kw):
        super().__init__(*a, **kw)
        self.rates_reply = rates_reply

    def diagnose(self, invocations, iterations, timeout):
        reply = super().diagnose(invocations, iterations, timeout)
        if self.rates_reply is not None:
            reply["rates"] = self.rates_reply
            reply["metrics"] = {"fixed": 7}
        return reply


def rows_for(costs: dict[str, float], rated: set[str]):
    cases = []
    for name in costs:
        bench = Benchmark(id=f"g.{name}", name=name, group="g", language="fake", params=(ParamAxis("n", ("1",)),),
                          file="bench_fake.cc")
        cases.append(Case(bench, (("n", 0),), Runtime(name="rt", language="fake", version="1", executable="/bin/true")))
    clock = FakeClock()

    def launch(c, i):
        return RatedWorker(clock, per_call_ns=costs[c.benchmark.name], seed=i,
                           rates_reply=RATES if c.benchmark.name in rated else None)
    results = Engine(get_job("short"), launch, clock=clock, rng=random.Random(1)).run_group(cases)
    return analyse(results, runtime_order=["rt"])


def test_per_second_divides_the_quantity_by_the_mean_and_formats_as_the_original_does():
    r = rates.parse(RATES)
    assert rates.per_second(r["Throughput"], 1000.0) == pytest.approx(1024e6)
    assert rates.format_rate(1024e6, r["Throughput"]) == "977 MiB/s"  # 1024e6 / 1024**2
    assert rates.format_rate(2.0 * 1024 ** 3, r["Throughput"]) == "2 GiB/s"
    assert rates.format_rate(3.4e6, {"unit": "elem", "base": 1000}) == "3.4 Melem/s"
    assert rates.format_rate(3.4e6, r["items_per_second"]) == "3.4 M/s"
    # kInvert: seconds per item, shown as a time
    assert rates.per_second(r["ns_per_item"], 1000.0) == pytest.approx(250e-9)
    assert rates.format_rate(250e-9, r["ns_per_item"]).startswith("250") and "ns/item" in rates.format_rate(250e-9, r["ns_per_item"])
    assert rates.per_second(r["Throughput"], None) is None and rates.per_second(r["Throughput"], 0.0) is None
    assert rates.format_rate(None, r["Throughput"]) == "NA"


def test_malformed_rates_are_left_out():
    assert rates.parse({"a": {"per_op": None}, "b": "x", "c": {"per_op": True}, "d": {"per_op": float("inf")},
                        "ok": {"per_op": 3}}) == {"ok": {"per_op": 3.0, "unit": "", "base": 1000, "invert": False}}
    assert rates.parse(None) == {} and rates.parse([1]) == {}


def test_rates_are_columns_computed_from_each_rows_mean():
    rows = rows_for({"fast": 1000.0, "slow": 4000.0, "plain": 500.0}, rated={"fast", "slow"})
    by = {r.result.case.benchmark.name: r for r in rows}
    (table,) = build_tables(rows)
    for col in ("Throughput", "items_per_second", "ns_per_item", "fixed"):
        assert col in table.columns
    cells = {row[0]: dict(zip(table.columns, row)) for row in table.rows}
    for name in ("fast", "slow"):
        mean = by[name].estimate.mean
        want = rates.format_rate(1024.0 / (mean * 1e-9), RATES["Throughput"])
        assert cells[name]["Throughput"] == want
        assert cells[name]["items_per_second"] == rates.format_rate(2.0 / (mean * 1e-9), RATES["items_per_second"])
        assert cells[name]["fixed"] == "7.000"  # a plain counter: as reported (units.number)
    # four times the time per op is a quarter of the throughput
    assert by["slow"].estimate.mean / by["fast"].estimate.mean == pytest.approx(4, rel=0.1)
    assert cells["plain"]["Throughput"] == "-"


def test_rates_per_second_are_in_the_results_and_the_csv_and_survive_a_reload():
    rows = rows_for({"fast": 1000.0}, rated={"fast"})
    doc = document(rows, get_job("short"), {}, ["perflab", "run"], __import__("datetime").datetime.now(), True)
    (c,) = json.loads(json.dumps(doc))["cases"]
    mean = c["estimate"]["mean"]
    assert c["rates"]["Throughput"] == pytest.approx(1024.0 / (mean * 1e-9))
    assert c["rates"]["ns_per_item"] == pytest.approx(mean * 1e-9 / 4.0)
    assert c["diagnostics"]["rates"]["Throughput"]["per_op"] == 1024.0
    assert case_result_from_json(c).diagnostics.rates == rates.parse(RATES)
    text = to_csv(rows)
    header = text.splitlines()[0].split(",")
    assert "rate:Throughput" in header and "rate:items_per_second" in header
