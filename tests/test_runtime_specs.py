"""Runtime specs on the command line."""
from perflab.runtimes import parse_spec, split_specs


def test_commas_separate_specs_but_not_a_specs_own_flags():
    assert split_specs("python3.8,python3.13") == ["python3.8", "python3.13"]
    assert split_specs("gcc12:-O2,gcc12:-O3,clang14:-O2") == ["gcc12:-O2", "gcc12:-O3", "clang14:-O2"]
    assert split_specs("rust-stable:opt-level=3,lto=fat,target-cpu=native,rust-nightly") == [
        "rust-stable:opt-level=3,lto=fat,target-cpu=native", "rust-nightly"]
    assert split_specs("jdk25:-Xmx1g,-XX:+UseParallelGC,jdk17") == [
        "jdk25:-Xmx1g,-XX:+UseParallelGC", "jdk17"]


def test_flags_and_environment_are_told_apart():
    assert parse_spec("python3.13:-X dev PYTHONHASHSEED=0") == (
        "python3.13", ("-X", "dev"), (("PYTHONHASHSEED", "0"),))
    assert parse_spec("node22") == ("node22", (), ())
