"""The difference flame graph's colour rule: a frame is red or blue only when its self share changed by
more than sampling noise explains, in the page's script and in Python alike (bench/profiles.py judges
a planted hot function by the Python side). Deterministic: collapsed stacks written by hand."""
from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from perflab.cli import main
from perflab.report.flame import NOISE_Z, SCRIPT, beyond_noise, diff_page, frame_changes

BENCH = "planted (b.go)"
HOT, OTHER = f"{BENCH};hot_helper (b.go)", f"{BENCH};other_work (b.go)"


def test_a_change_of_one_sample_is_noise_and_a_large_one_is_not():
    assert beyond_noise(10, 1000, 11, 1000) == 0.0          # one more sample of 1,000
    assert beyond_noise(500, 1000, 530, 1000) == 0.0        # 3 points at 1,000 samples: 1.3 standard errors
    assert beyond_noise(5000, 10000, 5300, 10000) == pytest.approx(0.03)  # the same 3 points at 10,000: 4.2
    assert beyond_noise(500, 1000, 400, 1000) == pytest.approx(-0.1)
    assert beyond_noise(0, 0, 5, 100) == 0.0 and beyond_noise(5, 100, 0, 0) == 0.0
    assert beyond_noise(0, 100, 0, 100) == 0.0


def test_the_benchmark_frame_whose_self_share_moved_by_noise_is_not_the_widest_red_frame():
    """The planted case: the benchmark's own frame (the widest) gains a few samples of self time by
    chance, its helper grew for real. Only the helper is red; the benchmark's frame is grey."""
    old = {BENCH: 20, HOT: 4990, OTHER: 4990}
    new = {BENCH: 24, HOT: 5260, OTHER: 4716}
    by_path = {p: (d, w, c) for p, d, w, c in frame_changes(old, new)}
    assert by_path[BENCH][2] == "grey" and by_path[BENCH][1] == 10000  # before: red, d = +0.0004
    assert by_path[HOT][2] == "red" and by_path[HOT][0] == pytest.approx(0.027)
    assert by_path[OTHER][2] == "blue"
    red = [(w, p) for p, d, w, c in frame_changes(old, new) if c == "red"]
    assert max(red)[1] == HOT


def test_frames_absent_from_the_old_profile_are_red_when_they_hold_many_samples():
    old = {BENCH: 1000}
    new = {BENCH: 700, f"{BENCH};new_helper (b.go)": 300}
    colours = {p: c for p, _, _, c in frame_changes(old, new)}
    assert colours == {BENCH: "blue", f"{BENCH};new_helper (b.go)": "red"}


def test_a_diff_page_without_a_change_beyond_noise_says_so():
    rec = lambda stacks: {"samples": sum(stacks.values()), "stacks": [[k, v] for k, v in stacks.items()]}  # noqa: E731
    page = diff_page("c", "a", "b", rec({BENCH: 10, HOT: 500}), rec({BENCH: 11, HOT: 499}))
    assert "No frame's self share grew by more than sampling noise" in page
    page = diff_page("c", "a", "b", rec({BENCH: 100, HOT: 500}), rec({BENCH: 100, HOT: 1500}))
    assert "hot_helper (b.go)</td><td>+" in page


@pytest.mark.skipif(shutil.which("node") is None, reason="node: the page's script is checked in it")
def test_the_page_script_colours_by_the_same_rule():
    cases = [(10, 1000, 11, 1000), (500, 1000, 530, 1000), (5000, 10000, 5300, 10000),
             (500, 1000, 400, 1000), (0, 0, 5, 100), (20, 10000, 24, 10000), (4990, 10000, 5260, 10000)]
    js = ("globalThis.window = {}; globalThis.document = {readyState: 'complete', querySelectorAll: () => []};\n"
          + SCRIPT.read_text()
          + f"\nconsole.log(JSON.stringify({json.dumps(cases)}.map(c => window.perflabFlame.beyondNoise(...c))));")
    got = json.loads(subprocess.run(["node", "-e", js], capture_output=True, text=True, check=True).stdout)
    assert got == pytest.approx([beyond_noise(*c) for c in cases])
    assert f"var NOISE_Z = {NOISE_Z:g};" in SCRIPT.read_text()


def test_profile_seconds_needs_profile_and_a_positive_number(tmp_path, capsys):
    assert main(["run", str(tmp_path), "--profile-seconds", "5"]) == 2
    assert "--profile-seconds needs --profile" in capsys.readouterr().err
    assert main(["run", str(tmp_path), "--profile", "--profile-seconds", "0"]) == 2
    assert "--profile-seconds 0: give a number of seconds above 0" in capsys.readouterr().err



RUST_OLD = "perflab::perflab_bench_call (perflab-bench);<hashbrown::raw::RawTable<T,A> as core::clone::Clone>::clone (perflab-bench)"
RUST_NEW = ("perflab::perflab_bench_call (perflab-bench);<hashbrown::raw::RawTable<(alloc::rc::Rc<str>, i32)> as "
            "core::clone::Clone>::clone (perflab-bench)")


def test_one_function_demangled_two_ways_by_two_toolchains_is_paired_not_new():
    """Rust 1.95 and nightly name the same hashbrown clone with and without its generic arguments:
    unpaired, the whole benchmark was drawn red as new (+52 %) and the old one vanished."""
    other = "<alloc::vec::Vec<u8> as core::clone::Clone>::clone (perflab-bench)"  # another "<…>::clone"
    old = {RUST_OLD: 1600, "[perflab harness]": 1400, other: 30}
    new = {RUST_NEW: 1620, "[perflab harness]": 1380, other: 30}
    colours = {p: c for p, _, _, c in frame_changes(old, new)}
    assert colours[RUST_NEW] == "grey" and RUST_OLD not in colours
    page = diff_page("c", "a", "b", {"stacks": [[k, v] for k, v in old.items()]},
                     {"stacks": [[k, v] for k, v in new.items()]})
    assert "No frame's self share grew by more than sampling noise" in page


def test_two_instantiations_on_each_side_are_left_as_they_are():
    """foo<int> and foo<long> are two functions: with two candidates a side nothing is renamed."""
    old = {"m;foo<int> (b)": 500, "m;foo<long> (b)": 500}
    new = {"m;foo<short> (b)": 500, "m;foo<char> (b)": 500}
    colours = {p: c for p, _, _, c in frame_changes(old, new)}
    assert colours == {"m": "grey", "m;foo<short> (b)": "red", "m;foo<char> (b)": "red"}


def test_generic_arguments_are_cut_and_a_qualified_paths_brackets_kept():
    from perflab.report.flame import _generic_args_removed as cut
    assert cut("<hashbrown::raw::RawTable<T,A> as core::clone::Clone>::clone (b)") == \
        "<hashbrown::raw::RawTable as core::clone::Clone>::clone (b)"
    assert cut("<hashbrown::raw::RawTable<(alloc::rc::Rc<str>, i32)> as core::clone::Clone>::clone (b)") == \
        "<hashbrown::raw::RawTable as core::clone::Clone>::clone (b)"
    assert cut("std::use_facet<std::ctype<wchar_t> > (libstdc++.so)") == "std::use_facet (libstdc++.so)"
