"""Parsing/Formatting experiments of seeds 003 (".NET Core 3.0": Parsing/Formatting) and 000
(".NET 6": System Types), ported to int(), uuid, datetime, email.utils and decimal."""
import datetime
import decimal
import email.utils
import uuid

import perflab

S003 = "Parsing/Formatting"
S000 = "System Types"


def _meta(seed, section, fidelity=None):
    """Seed tags plus how faithful the port is (suites/seeds/README.md, "Fidelity"); no fidelity
    means not audited yet."""
    meta = {"seed": seed, "section": section}
    if fidelity:
        meta["fidelity"] = fidelity
    return meta


@perflab.benchmark(name="ParseInt32Dec", categories=["parsing_formatting"], meta=_meta("003", S003, "faithful"))
def parse_int32_dec():
    return int("12345678")


@perflab.benchmark(name="ParseInt32Hex", categories=["parsing_formatting"], meta=_meta("003", S003, "faithful"))
def parse_int32_hex():
    return int("BC614E", 16)


_GUID = str(uuid.UUID(int=0x1F2E3D4C5B6A79880123456789ABCDEF))


@perflab.benchmark(name="ParseGuid", categories=["parsing_formatting"], meta=_meta("003", S003, "faithful"))
def parse_guid():
    """Guid.ParseExact(s, "D") ↔ uuid.UUID(s)."""
    return uuid.UUID(_GUID)


_GUID_VALUE = uuid.UUID(_GUID)


@perflab.benchmark(name="GuidToString", categories=["parsing_formatting"],
                   meta={"extra": True, "related": "000 · " + S000})
def guid_to_string():
    return str(_GUID_VALUE)


@perflab.benchmark(name="GuidToFromBytes", categories=["parsing_formatting"], meta=_meta(
    "003", S003, "partial: UUID.bytes makes a new bytes object and UUID(bytes=) a new UUID; the seed writes into a "
    "reused 16-byte buffer and reads a struct back"))
def guid_to_from_bytes():
    return uuid.UUID(bytes=_GUID_VALUE.bytes)


_NOW = datetime.datetime(2019, 4, 18, 13, 45, 30, 123456, tzinfo=datetime.timezone.utc)
_R = email.utils.format_datetime(_NOW, usegmt=True)   # DateTime "r" (RFC 1123)
_O = _NOW.isoformat()                                  # DateTime "o" (round-trip ISO 8601)


@perflab.benchmark(name="ParseR", categories=["parsing_formatting"], meta=_meta("003", S003, "faithful"))
def parse_r():
    return email.utils.parsedate_to_datetime(_R)


@perflab.benchmark(name="ParseO", categories=["parsing_formatting", "quick"],
                   meta=_meta("003", S003, "faithful"))
def parse_o():
    return datetime.datetime.fromisoformat(_O)


@perflab.benchmark(name="DateTimeToString", categories=["parsing_formatting"], meta=_meta(
    "003", S003, "partial: str(datetime) is the ISO form with microseconds and offset; the seed's ToString() "
    "is the culture's \"G\" pattern (date and time to the second, no zone)"))
def date_time_to_string():
    return str(_NOW)


# the seed's TimeSpan(3, 10, 2, 34, 567)
_TS = datetime.timedelta(days=3, hours=10, minutes=2, seconds=34, milliseconds=567)


@perflab.benchmark(name="TimeSpanToString", categories=["parsing_formatting"], meta=_meta(
    "003", S003, 'partial: str(timedelta) ("3 days, 10:02:34.567000"); the seed\'s ToString() is the "c" form '
    '3.10:02:34.5670000'))
def time_span_to_string():
    return str(_TS)


_DEC = decimal.Decimal("12345.6789")


@perflab.benchmark(name="DecimalToString", categories=["parsing_formatting"], meta=_meta("003", S003, "faithful"))
def decimal_to_string():
    return str(_DEC)


_DIGIT = 7


@perflab.benchmark(name="SingleDigitToString", categories=["parsing_formatting"],
                   meta=_meta("003", S003, "faithful"))
def single_digit_to_string():
    return str(_DIGIT)


_VERSION = (6, 1, 21412, 16)


@perflab.benchmark(name="VersionToString", categories=["parsing_formatting"], meta=_meta(
    "000", S000, "partial: no Version type in the stdlib; '%d.%d.%d.%d' % a 4-tuple stands for Version.ToString"))
def version_to_string():
    """Version(6, 1, 21412, 16).ToString() ↔ the four numbers formatted into one string (as .NET 6
    formats them into one buffer)."""
    return "%d.%d.%d.%d" % _VERSION


# The seed's arguments: 'a', (Rune)'b', (nint)'c', (nuint)'d' → "a b 99 100" (Python's char is a
# one-character str, its native integer an int).
_FORMAT_ARGS = ("a", "b", ord("c"), ord("d"))


@perflab.benchmark(name="Format", categories=["parsing_formatting"], meta=_meta("000", S000, "faithful"))
def format_():
    """string.Format("{0} {1} {2} {3}", 'a', (Rune)'b', (nint)'c', (nuint)'d') ↔ str.format."""
    return "{0} {1} {2} {3}".format(*_FORMAT_ARGS)
