//! Parsing/Formatting experiments of seeds 003 (".NET Core 3.0": Parsing/Formatting) and 000
//! (".NET 6": System Types), ported to `str::parse`, `from_str_radix`, `u128` and `format!`.
//! std has no GUID type: a GUID is a `u128`, parsed from and formatted as its five hex groups.
//! Left out: ParseR, ParseO, DateTimeToString (std has no calendar date-time type or parser) and
//! DecimalToString (no decimal type).
use perflab::{black_box, Registry};
use std::fmt::Write as _;
use std::time::Duration;

const S003: &str = "Parsing/Formatting";
const S000: &str = "System Types";

/// int.Parse("12345678") ↔ `str::parse::<i32>`.
fn parse_int32_dec() -> i32 {
    black_box("12345678").parse::<i32>().unwrap()
}

/// int.Parse("BC614E", NumberStyles.HexNumber) ↔ `i32::from_str_radix(…, 16)`.
fn parse_int32_hex() -> i32 {
    i32::from_str_radix(black_box("BC614E"), 16).unwrap()
}

const GUID_TEXT: &str = "1f2e3d4c-5b6a-7988-0123-456789abcdef";
const GUID_VALUE: u128 = 0x1F2E3D4C_5B6A_7988_0123_456789ABCDEF;

/// Guid.ParseExact(s, "D") ↔ the five hyphen-separated hex groups, checked and parsed with
/// `u128::from_str_radix`.
fn parse_guid_d(s: &str) -> Option<u128> {
    let b = s.as_bytes();
    if b.len() != 36 || b[8] != b'-' || b[13] != b'-' || b[18] != b'-' || b[23] != b'-' {
        return None;
    }
    let mut v: u128 = 0;
    for (start, len) in [(0, 8), (9, 4), (14, 4), (19, 4), (24, 12)] {
        let part = &s[start..start + len];
        if !part.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None; // from_str_radix would accept a leading '+'
        }
        v = v << (len * 4) | u128::from_str_radix(part, 16).ok()?;
    }
    Some(v)
}

fn parse_guid() -> u128 {
    parse_guid_d(black_box(GUID_TEXT)).unwrap()
}

/// Guid.ToString() ↔ `write!` of the five groups with `{:08x}`-style formatting.
fn guid_to_string() -> String {
    let g = black_box(GUID_VALUE);
    let mut s = String::with_capacity(36);
    write!(
        s,
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        (g >> 96) as u32,
        (g >> 80) as u16,
        (g >> 64) as u16,
        (g >> 48) as u16,
        g & 0xFFFF_FFFF_FFFF
    )
    .unwrap();
    s
}

/// new Guid(guid.ToByteArray()) ↔ `u128::to_be_bytes` / `from_be_bytes`.
fn guid_to_from_bytes() -> u128 {
    let bytes = black_box(GUID_VALUE).to_be_bytes();
    u128::from_be_bytes(black_box(bytes))
}

/// TimeSpan(3, 10, 2, 34, 567).ToString() ↔ the `Debug` formatting of a `Duration` (std's only one).
fn time_span_to_string() -> String {
    let ts = black_box(Duration::from_millis(((3 * 24 + 10) * 60 + 2) * 60_000 + 34_567));
    format!("{:?}", ts)
}

/// 7.ToString() ↔ `to_string`.
fn single_digit_to_string() -> String {
    black_box(7i32).to_string()
}

/// new Version(6, 1, 21412, 16).ToString() ↔ `format!("{}.{}.{}.{}", …)`.
fn version_to_string() -> String {
    let (a, b, c, d) = black_box((6u32, 1u32, 21412u32, 16u32));
    format!("{}.{}.{}.{}", a, b, c, d)
}

/// string.Format("{0} {1} {2} {3}", 'a', (Rune)'b', (nint)'c', (nuint)'d') → "a b 99 100" ↔ `format!`
/// of two chars, an isize and a usize.
fn format() -> String {
    let (a, b, c, d) = black_box(('a', 'b', 'c' as isize, 'd' as usize));
    format!("{0} {1} {2} {3}", a, b, c, d)
}

pub fn register(r: &mut Registry) {
    let cat = "parsing_formatting";
    r.func("ParseInt32Dec", parse_int32_dec).category(cat).meta("seed", "003").meta("section", S003).meta("fidelity", "faithful");
    r.func("ParseInt32Hex", parse_int32_hex).category(cat).meta("seed", "003").meta("section", S003).meta("fidelity", "faithful");
    r.func("ParseGuid", parse_guid)
        .category(cat)
        .meta("seed", "003")
        .meta("section", S003)
        .meta("fidelity", "partial: std has no Guid; the port's check of the five hex groups, parsed with u128::from_str_radix");
    r.func("GuidToString", guid_to_string).category(cat).meta("extra", true).meta("related", format!("000 · {S000}"));
    r.func("GuidToFromBytes", guid_to_from_bytes)
        .category(cat)
        .meta("seed", "003")
        .meta("section", S003)
        .meta("fidelity", "partial: std has no Guid; a u128 to and from its 16 bytes (to_be_bytes/from_be_bytes)");
    r.func("TimeSpanToString", time_span_to_string)
        .category(cat)
        .meta("seed", "003")
        .meta("section", S003)
        .meta("fidelity", "partial: std's only Duration text is Debug (\"295354.567s\"); the seed's ToString() is the \"c\" form 3.10:02:34.5670000");
    r.func("SingleDigitToString", single_digit_to_string)
        .category(cat)
        .meta("seed", "003")
        .meta("section", S003)
        .meta("fidelity", "faithful");
    r.func("VersionToString", version_to_string)
        .category(cat)
        .meta("seed", "000")
        .meta("section", S000)
        .meta("fidelity", "partial: no Version type in std; format! of the four numbers stands for Version.ToString");
    r.func("Format", format).category(cat).meta("seed", "000").meta("section", S000).meta("fidelity", "faithful");
}
