""""Far too fast" (perflab.too_fast): a case faster than its declared work can take on the machine gets a
note with the bound and why, in the table's notes and the results' warnings; never a verdict. Machine
bounds are given (MachineSpeed), so nothing here depends on the machine the tests run on; the cases
go through the engine with fake workers (deterministic per-call costs)."""
import json
import random

import pytest

from perflab.analysis import analyse
from perflab.engine.runner import Engine
from perflab.jobs import get_job
from perflab.model import Benchmark, Case, ParamAxis, Runtime
from perflab.report.table import build_tables
from perflab.results import document
from perflab.too_fast import (LOADS_PER_CYCLE, TURBO_HEADROOM, MachineSpeed, count_notes, declared_bytes,
                              read_machine, time_notes)

from fakes import FakeClock, FakeWorker

# 2 GHz, 32-byte vectors: one cycle is 0.5 ns, and a core loads at most 2 × 3 × 32 = 192 B a ns
SPEED = MachineSpeed(2.0, "test", 32)
CPUINFO = ("processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Processor\ncpu MHz\t\t: 2599.998\n"
           "flags\t\t: fpu sse2 avx avx2 avx512f\nprocessor\t: 1\ncpu MHz\t\t: 2400.000\n")


def test_the_machine_bound_comes_from_sysfs_or_cpuinfo_with_turbo_headroom():
    m = read_machine(CPUINFO, "3500000\n")
    assert (m.ghz, m.source, m.vector_bytes) == (3.5, "cpuinfo_max_freq", 64)
    m = read_machine(CPUINFO, "")  # a VM: nominal clock only
    assert m.ghz == pytest.approx(2.599998 * TURBO_HEADROOM) and "nominal" in m.source
    assert m.bytes_per_ns == pytest.approx(m.ghz * LOADS_PER_CYCLE * 64)
    assert read_machine("model name\t: Foo CPU @ 3.00GHz\nflags\t: sse2\n", "").vector_bytes == 16
    assert read_machine("model name\t: Foo CPU @ 3.00GHz\nflags\t: sse2\n", "").ghz == pytest.approx(4.5)
    assert read_machine("processor\t: 0\n", "") is None  # nothing says: no bound, no note


def test_declared_bytes_are_the_byte_rates_not_elements_or_inverted_ones():
    assert declared_bytes({"Throughput": {"per_op": 4096.0, "unit": "B", "invert": False},
                           "items": {"per_op": 1e9, "unit": "elem", "invert": False}}) == 4096.0
    assert declared_bytes({"t": {"per_op": 8.0, "unit": "B", "invert": True}}) is None
    assert declared_bytes(None) is None and declared_bytes({}) is None


def test_declared_bytes_beyond_what_the_machine_can_load_are_far_too_fast():
    # 1 MiB an op in 100 ns: 10,486 B/ns against 192
    notes = time_notes(SPEED, 100.0, 98.0, 102.0, 1, 1048576.0, empty=False)
    assert len(notes) == 1 and notes[0].startswith("far too fast: 1,048,576 declared bytes")
    assert "192 B/ns" in notes[0] and "3 loads of 32 B a cycle at 2.00 GHz" in notes[0]
    # 1 KiB in 100 ns is 10 B/ns: nothing to say; the interval's slow end is what is judged
    assert time_notes(SPEED, 100.0, 98.0, 102.0, 1, 1024.0, empty=False) == []
    assert time_notes(SPEED, 100.0, 50.0, 1e6, 1, 1048576.0, empty=False) == []
    # also without the overhead subtracted (the gross time is only longer)
    assert time_notes(SPEED, 100.0, 98.0, 102.0, 1, 1048576.0, empty=False, net=False)


def test_a_call_below_one_cycle_beyond_the_empty_loop_is_far_too_fast():
    notes = time_notes(SPEED, 0.2, 0.15, 0.25, 1, None, empty=False)
    assert len(notes) == 1 and "its whole interval under one CPU cycle (0.5 ns at 2.00 GHz, test)" in notes[0]
    # per call, not per op: 4 ops a call at 0.2 ns an op is 0.8 ns a call, more than a cycle
    assert time_notes(SPEED, 0.2, 0.15, 0.25, 4, None, empty=False) == []
    # an interval that reaches zero, or above a cycle: nothing (the empty warning covers the first)
    assert time_notes(SPEED, 0.2, -0.1, 0.45, 1, None, empty=False) == []
    assert time_notes(SPEED, 0.4, 0.3, 0.6, 1, None, empty=False) == []
    # an empty case, no machine bound, or the loop not subtracted: nothing
    assert time_notes(SPEED, 0.2, 0.15, 0.25, 1, None, empty=True) == []
    assert time_notes(None, 0.2, 0.15, 0.25, 1, 1e9, empty=False) == []
    assert time_notes(SPEED, 0.2, 0.15, 0.25, 1, None, empty=False, net=False) == []


def test_fewer_instructions_than_loading_the_declared_bytes_takes_are_far_too_fast():
    notes = count_notes(10.0, 4096.0)  # 4096 B need 128 loads of 32 B
    assert len(notes) == 1 and "fewer than the 128.0" in notes[0]
    assert count_notes(200.0, 4096.0) == [] and count_notes(None, 4096.0) == [] and count_notes(3.0, None) == []


class BytesWorker(FakeWorker):
    """A fake worker whose benchmark declares bytes per op (criterion's Throughput::Bytes)."""

    def __init__(self, *a, bytes_per_op: float, **kw):
        super().__init__(*a, **kw)
        self.bytes_per_op = bytes_per_op

    def diagnose(self, invocations, iterations, timeout):
        reply = super().diagnose(invocations, iterations, timeout)
        reply["rates"] = {"Throughput": {"per_op": self.bytes_per_op, "unit": "B", "base": 1024}}
        return reply


def _rows(per_call_ns: dict[str, float], bytes_per_op: float, speed=SPEED):
    cases = [Case(Benchmark(id=f"g.{n}", name=n, group="g", language="fake", params=(ParamAxis("n", ("1",)),),
                            file="bench_fake.rs"),
                  (("n", 0),), Runtime(name="rt", language="fake", version="1", executable="/bin/true"))
             for n in per_call_ns]
    clock = FakeClock()

    def launch(c, i):
        return BytesWorker(clock, per_call_ns[c.benchmark.name], overhead_ns=2.0, noise=0.01, seed=i,
                           bytes_per_op=bytes_per_op)
    results = Engine(get_job("short"), launch, clock=clock, rng=random.Random(2)).run_group(cases)
    return analyse(results, runtime_order=["rt"], speed=speed)


def test_a_planted_dead_loop_is_noted_in_the_table_and_the_results():
    """64 KiB declared: the real loop (400 ns an op, 164 B/ns) passes; the one whose work was removed
    (20 ns an op: 3,277 B/ns) is noted, with the bound, in the table's notes and the results."""
    rows = _rows({"sunk": 400.0, "discarded": 20.0}, 65536.0)
    by = {r.result.case.benchmark.name: r for r in rows}
    assert not [w for w in by["sunk"].warnings if w.startswith("far too fast")]
    (note,) = [w for w in by["discarded"].warnings if w.startswith("far too fast")]
    assert "65,536 declared bytes" in note and "192 B/ns" in note
    (table,) = build_tables(rows)
    assert any("discarded" in line and "far too fast" in line for line in table.legend)
    doc = json.loads(json.dumps(document(rows, get_job("short"), {}, ["perflab", "run"],
                                         __import__("datetime").datetime.now(), True)))
    (case,) = [c for c in doc["cases"] if c["benchmark"]["name"] == "discarded"]
    assert any(w.startswith("far too fast") for w in case["warnings"])
    # without a machine bound there is nothing to compare with: no note
    rows = _rows({"discarded": 20.0}, 65536.0, speed=None)
    assert not [w for w in rows[0].warnings if w.startswith("far too fast")]


class GoBytesWorker(FakeWorker):
    """A fake Go worker: `b.SetBytes(n)` comes as `bytes_per_op` in its diagnostics reply."""

    def diagnose(self, invocations, iterations, timeout):
        return {**super().diagnose(invocations, iterations, timeout), "bytes_per_op": 65536}


def test_go_set_bytes_is_a_throughput_and_is_checked_like_the_others():
    case = Case(Benchmark(id="g.Sum", name="Sum", group="g", language="go", file="x_test.go"), (),
                Runtime(name="go", language="go", version="1", executable="/bin/true"))
    clock = FakeClock()
    [res] = Engine(get_job("short"), lambda c, i: GoBytesWorker(clock, 20.0, overhead_ns=2.0, noise=0.01, seed=i),
                   clock=clock, rng=random.Random(2)).run_group([case])
    assert res.diagnostics.rates == {"Throughput": {"per_op": 65536.0, "unit": "B", "base": 1000, "invert": False}}
    [row] = analyse([res], runtime_order=["go"], speed=SPEED)
    assert [w for w in row.warnings if w.startswith("far too fast: 65,536 declared bytes")]
