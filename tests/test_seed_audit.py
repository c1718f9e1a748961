"""The seed corpus's audit rules (tests/seed_audit.py) on made-up benchmarks and a made-up seed text."""
import seed_audit

TEXTS = {"000": "[Benchmark]\npublic void GetBytes() { }\npublic byte[] New() => Rfc2898DeriveBytes.Pbkdf2(x);"}
CLAIMED = {("000", "Cryptography", "GetBytes")}
SEED = {"seed": "000", "section": "Cryptography"}


def problems(name, meta, categories=(), texts=TEXTS):
    return seed_audit.problems(name, meta, list(categories), texts, CLAIMED)


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
    [p] = problems("Pbkdf2", {**SEED, "section": "Other", "seed_method": "New"}, ["quick"])
    assert "quick" in p


def test_a_seed_tagged_name_must_be_a_method_of_the_seed():
    [p] = problems("RandomAccessRead", {**SEED, "section": "Other"})
    assert "RandomAccessRead( does not occur in seed 000" in p
    # the seed's Old/New pair ported under the API's name says which method it is
    assert problems("Pbkdf2", {**SEED, "section": "Other", "seed_method": "New"}) == []
    # a console-app scenario has no method to find
    assert problems("ThreadPoolStarvation", {**SEED, "section": "Other", "scenario": True}) == []


def test_without_the_seed_texts_only_the_tags_are_checked():
    assert problems("RandomAccessRead", {**SEED, "section": "Other"}, texts={}) == []


def test_an_extra_has_no_seed_tags_and_says_where_it_belongs():
    assert problems("CancelEvent", {"extra": True, "related": "000 · Threading"}) == []
    assert problems("CancelEvent", {"extra": "true", "related": "000 · Threading"}) == []  # Go/Java strings
    ps = problems("CancelEvent", {"extra": True, **SEED})
    assert any("must not carry seed/section" in p for p in ps)
    assert any("related" in p for p in ps)


def test_neither_seed_tags_nor_extra_is_an_error():
    assert problems("Foo", {}) == ["neither seed tags nor extra=True"]


def test_seeds_folder_is_found_beside_the_checkout_or_its_parent(tmp_path):
    checkout = tmp_path / "wt" / "ports"
    checkout.mkdir(parents=True)
    assert seed_audit.seeds_folder(checkout) is None
    seeds = tmp_path / "shared" / "seeds"
    seeds.mkdir(parents=True)
    (seeds / "000_abc.txt").write_text("public void X() {}", encoding="utf-8")
    assert seed_audit.seeds_folder(checkout) == seeds
    assert seed_audit.seed_texts(seeds) == {"000": "public void X() {}"}
