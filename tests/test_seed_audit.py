"""The seed corpus's audit rules (tests/seed_audit.py) on made-up benchmarks and made-up seed methods,
and the seed methods read from the committed C# corpus."""
import seed_audit

METHODS = {("000", "Cryptography"): {"GetBytes": {}, "Old": {}, "New": {}},
           ("000", "IO"): {"Read": {"BufferSize": {"1", "4096"}, "IsAsync": {"false", "true"}}},
           ("000", "Threading"): {"ThreadPoolStarvation": {}, "CreateTokenDispose": {}}}
CLAIMED = {("000", "Cryptography", "GetBytes")}
SEED = {"seed": "000", "section": "Cryptography"}


def problems(name, meta, categories=(), methods=METHODS, params=None):
    return seed_audit.problems(name, meta, list(categories), methods, CLAIMED, params)


def test_a_faithful_port_of_a_seed_method_passes():
    assert problems("bench.GetBytes", {**SEED, "fidelity": "faithful"}, ["quick"]) == []


def test_fidelity_has_one_of_three_forms():
    assert problems("GetBytes", {**SEED, "fidelity": "partial: std has no RNG"}) == []
    assert problems("GetBytes", {**SEED, "fidelity": "different: zlib, not Brotli"}) == []
    [p] = problems("GetBytes", {**SEED, "fidelity": "mostly"})
    assert "is not 'faithful'" in p
    [p] = problems("GetBytes", {**SEED, "fidelity": "partial:"})
    assert "is not 'faithful'" in p


def test_a_claimed_method_needs_a_fidelity_tag():
    [p] = problems("GetBytes", SEED)
    assert "claim" in p


def test_the_quick_slice_is_audited():
    [p] = problems("Pbkdf2", {**SEED, "seed_method": "New"}, ["quick"])
    assert "quick" in p


def test_a_seed_tagged_name_must_be_a_benchmark_method_of_the_seeds_section():
    [p] = problems("RandomAccessRead", SEED)
    assert "RandomAccessRead is not a [Benchmark] method of seed 000 · Cryptography" in p
    # an API the seed calls is not its method (Rfc2898DeriveBytes.Pbkdf2 inside the seed's New)…
    [p] = problems("Pbkdf2", SEED)
    assert "Pbkdf2 is not a [Benchmark] method" in p
    # …unless the port says which seed method it stands for
    assert problems("Pbkdf2", {**SEED, "seed_method": "New"}) == []
    # a method of another section of the same seed is not one of this section's
    [p] = problems("CreateTokenDispose", SEED)
    assert "not a [Benchmark] method" in p
    # a console-app scenario is one of the seed's programs, and a BenchmarkDotNet method is not a scenario
    assert problems("ThreadPoolStarvation", {"seed": "000", "section": "Threading", "scenario": True}) == []
    [p] = problems("CreateTokenDispose", {"seed": "000", "section": "Threading", "scenario": True})
    assert "scenario" in p


def test_parameter_values_are_the_seeds():
    io = {"seed": "000", "section": "IO", "fidelity": "faithful"}
    assert problems("Read", io, params={"BufferSize": ["1", "4096"]}) == []
    [p] = problems("Read", io, params={"BufferSize": ["1", "8192"]})
    assert "BufferSize=8192" in p
    assert problems("Read", io, params={"how": ["x"]}) == []  # not a parameter of the seed's


def test_the_seeds_rows_are_run_all_and_only():
    meta = {"seed": "002", "section": "WriteAsync", "fidelity": "faithful"}
    grid = {"fileSize": ["1048576"], "userBufferSize": ["512", "4096"]}
    rows = [("a", "WriteAsync", meta, grid),
            ("b", "WriteAsync", meta, {"fileSize": ["104857600"], "userBufferSize": ["4096"]}),
            ("c", "WriteAsync", meta, {"fileSize": ["1024"], "userBufferSize": ["1024"]})]
    assert seed_audit.row_problems(rows) == []
    [p] = seed_audit.row_problems(rows[:2])
    assert "misses the seed's rows (1024, 1024)" in p
    [p] = seed_audit.row_problems(rows + [("d", "WriteAsync", meta, {"fileSize": ["1024"], "userBufferSize": ["512"]})])
    assert "runs rows the seed did not ((1024, 512)" in p
    # extras carry no seed tags: never checked
    assert seed_audit.row_problems([("e", "Write_NoBuffering", {"extra": True}, grid)]) == []


def test_without_seed_methods_only_the_tags_are_checked():
    assert problems("RandomAccessRead", SEED, methods={}) == []


def test_an_extra_has_no_seed_tags_and_says_where_it_belongs():
    assert problems("CancelEvent", {"extra": True, "related": "000 · Threading"}) == []
    assert problems("CancelEvent", {"extra": "true", "related": "000 · Threading"}) == []  # Go/Java strings
    ps = problems("CancelEvent", {"extra": True, **SEED})
    assert any("must not carry seed/section" in p for p in ps)
    assert any("related" in p for p in ps)


def test_neither_seed_tags_nor_extra_is_an_error():
    assert problems("Foo", {}) == ["neither seed tags nor extra=True"]


def test_seed_methods_come_from_the_committed_csharp():
    """No seed document is read: the methods and [Params] are the committed C# corpus's."""
    m = seed_audit.seed_methods()
    assert {"SeekForward", "SeekBackward"} <= set(m[("002", "Seek/Position")])
    assert m[("000", "IO")]["Read"]["BufferSize"] == {"1", "4096"}
    assert {"Old", "New"} <= set(m[("000", "Cryptography")]) and "Pbkdf2" not in m[("000", "Cryptography")]
    assert "Hash" in m[("000", "Blazor and mono")] and "HashData" not in m[("000", "Blazor and mono")]
    assert "ThreadPoolStarvation" in m[("000", "Threading")]
