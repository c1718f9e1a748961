"""Arrays, Strings, Spans experiments of seeds 000 (".NET 6": Arrays, Strings, Spans) and 003
(".NET Core 3.0": Span and Friends, Arrays and Strings), ported to str, bytes, bytearray and array."""
import array
import os

import perflab


def _meta(seed, section, fidelity=None):
    """Seed tags plus how faithful the port is (suites/seeds/README.md, "Fidelity"); no fidelity
    means not audited yet."""
    meta = {"seed": seed, "section": section}
    if fidelity:
        meta["fidelity"] = fidelity
    return meta


S000 = "Arrays, Strings, Spans"
S003 = "Arrays and Strings"

TEXT = "partial: string.Replace on ~100 KB of generated CRLF text; the seed downloads the complete works of Mark Twain (no network here)"

PERIOD_TEXT = "Let's see how fast we can find the period towards the end of this string. Pretty fast?"


@perflab.benchmark(name="IndexOf", categories=["arrays_strings", "quick"],
                   meta=_meta("003", S003, "faithful"))
def index_of():
    """string.IndexOf('.') ↔ str.find('.')."""
    return PERIOD_TEXT.find(".")


_BYTES = ("This is a test to see improvements to IndexOfAny. How'd they work?").encode()


@perflab.benchmark(name="IndexOfAny", categories=["arrays_strings"], meta=dict(_meta(
    "003", "Span and Friends", "partial: no IndexOfAny in Python; two bytes.find and their min"),
    seed_method="IndexOf"))  # the seed's method is IndexOf, calling Span.IndexOfAny
def index_of_any():
    """Span<byte>.IndexOfAny('.', '?') ↔ min of two bytes.find (no IndexOfAny in Python)."""
    a, b = _BYTES.find(b"."), _BYTES.find(b"?")
    return min(x for x in (a, b) if x >= 0)


_STRINGS = ["Hi", "How", "are", "you", "today"]


@perflab.benchmark(name="Join", categories=["arrays_strings"], meta=_meta("000", S000, "faithful"))
def join():
    return ", ".join(_STRINGS)


class Replace:
    """string.Replace on a ~100 KB text (seed: a downloaded book; here generated prose with CRLF)."""

    def setup(self):
        line = "The quick brown fox jumps over the lazy dog. Pack my box with five dozen jugs.\r\n"
        self.text = line * 1200

    @perflab.benchmark(name="Yell", categories=["arrays_strings"], meta=_meta("000", S000, TEXT))
    def yell(self):
        return self.text.replace(".", "!")

    @perflab.benchmark(name="ConcatLines", categories=["arrays_strings"], meta=_meta("000", S000, TEXT))
    def concat_lines(self):
        return self.text.replace("\n", "")

    @perflab.benchmark(name="NormalizeEndings", categories=["arrays_strings"], meta=_meta("000", S000, TEXT))
    def normalize_endings(self):
        return self.text.replace("\r\n", "\n")


class Hex:
    """Convert.ToHexString(64 random bytes) ↔ bytes.hex() (lowercase digits, .NET's are uppercase)."""

    def setup(self):
        self.data = os.urandom(64)  # RandomNumberGenerator.Fill(new byte[64]) in the GlobalSetup

    @perflab.benchmark(name="ToHexString", categories=["arrays_strings"],
                       meta=_meta("000", S000, "faithful"))
    def to_hex_string(self):
        return self.data.hex()


class HexDecode:
    """Not a method of the seed: the reverse conversion, bytes.fromhex."""

    params = {"length": [100, 10000]}

    def setup(self):
        self.hex = bytes(i & 0xFF for i in range(self.length)).hex()

    @perflab.benchmark(name="FromHexString", categories=["arrays_strings"],
                       meta={"extra": True, "related": "000 · " + S000})
    def from_hex_string(self):
        return bytes.fromhex(self.hex)


_CHARS = array.array("u", "\0" * 128)
_INTS10 = [0] * 10


@perflab.benchmark(name="ArrayFill", categories=["arrays_strings"], meta=_meta(
    "000", S000, "partial: no fill API; slice assignment from a new 128-char array"))
def array_fill():
    """Array.Fill(char[128], 'c') ↔ slice assignment on a 128-char array."""
    _CHARS[:] = array.array("u", "c" * 128)


@perflab.benchmark(name="SpanFill", categories=["arrays_strings"], meta=_meta(
    "000", S000, "different: builds a new 128-element list instead of filling the existing array"))
def span_fill():
    """Span.Fill ↔ a fresh 128-element list made by repetition."""
    return ["c"] * 128


@perflab.benchmark(name="Clear", categories=["arrays_strings"], meta=dict(_meta(
    "000", S000, "partial: no clear API; slice assignment from a new list of 10 zeros"), seed_method="New"))  # the seed's New: Array.Clear(array) of an int[10]
def clear():
    """Array.Clear(int[10]) ↔ slice assignment of zeros."""
    _INTS10[:] = [0] * 10


_REV = list(range(256))


@perflab.benchmark(name="Reverse", categories=["arrays_strings"], meta=_meta("003", S003, "faithful"))
def reverse():
    _REV.reverse()


class SequenceCompareTo:
    params = {"Length": [16, 256]}

    def setup(self):
        self.orig = bytes(range(self.Length)) if self.Length <= 256 else bytes(self.Length)
        # a distinct object: bytes(b) returns b itself, and `==` on one object compares nothing
        self.same = bytes(bytearray(self.orig))
        self.last = self.orig[:-1] + bytes([(self.orig[-1] + 1) & 0xFF])

    @perflab.benchmark(name="CompareSame", categories=["arrays_strings"],
                       meta=_meta("003", "Span and Friends", "faithful"))
    def compare_same(self):
        """SequenceCompareTo ↔ the bytes ordering (memcmp over the whole length)."""
        return self.orig < self.same

    @perflab.benchmark(name="CompareDifferLast", categories=["arrays_strings"],
                       meta=_meta("003", "Span and Friends", "faithful"))
    def compare_differ_last(self):
        return self.orig < self.last


@perflab.benchmark(name="EqualsIC", categories=["arrays_strings"], meta=_meta(
    "003", S003, "partial: no case-insensitive compare; casefold() makes two new strings, then =="))
def equals_ic():
    """Equals(…, OrdinalIgnoreCase) ↔ casefold on both sides."""
    return "Some string".casefold() == "sOME sTrinG".casefold()


@perflab.benchmark(name="ToUpperInvariant", categories=["arrays_strings"], meta=_meta(
    "003", "Span and Friends", "partial: str.upper() allocates a new string; the seed writes into a reused char buffer"))
def to_upper_invariant():
    return "This is a source string that needs to be capitalized.".upper()


@perflab.params(Data=["", " abcdefg ", "abcdefg"])
@perflab.benchmark(name="Trim", categories=["arrays_strings"], meta=_meta(
    "003", "Span and Friends", "partial: str.strip() makes a new string when it trims; the seed returns a span"))
def trim(Data):
    return Data.strip()
