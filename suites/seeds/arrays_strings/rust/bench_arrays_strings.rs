//! Arrays, Strings, Spans experiments of seeds 000 (".NET 6": Arrays, Strings, Spans) and 003
//! (".NET Core 3.0": Span and Friends, Arrays and Strings), ported to str, String, slices and arrays.
//! A .NET `char` is a UTF-16 code unit: `char[]`/`Span<char>` ↔ `[u16]`.
use perflab::{black_box, Bencher, Registry};

const S000: &str = "Arrays, Strings, Spans";
const S003: &str = "Arrays and Strings";
const SPAN: &str = "Span and Friends";

const PERIOD_TEXT: &str = "Let's see how fast we can find the period towards the end of this string. Pretty fast?";

/// string.IndexOf('.') ↔ `str::find('.')`.
fn index_of() -> Option<usize> {
    black_box(PERIOD_TEXT).find('.')
}

const BYTES: &[u8] = b"This is a test to see improvements to IndexOfAny. How'd they work?";

/// Span<byte>.IndexOfAny('.', '?') ↔ `iter().position` with either byte.
fn index_of_any() -> Option<usize> {
    black_box(BYTES).iter().position(|&c| c == b'.' || c == b'?')
}

/// string.Join(", ", …) ↔ `[&str]::join`.
fn join() -> String {
    black_box(["Hi", "How", "are", "you", "today"]).join(", ")
}

/// string.Replace on a ~100 KB text (seed: a downloaded book; here generated prose with CRLF).
fn text() -> String {
    "The quick brown fox jumps over the lazy dog. Pack my box with five dozen jugs.\r\n".repeat(1200)
}

fn yell(b: &mut Bencher) {
    let t = text();
    b.iter(move || black_box(&t).replace('.', "!"));
}

fn concat_lines(b: &mut Bencher) {
    let t = text();
    b.iter(move || black_box(&t).replace('\n', ""));
}

fn normalize_endings(b: &mut Bencher) {
    let t = text();
    b.iter(move || black_box(&t).replace("\r\n", "\n"));
}

/// Convert.ToHexString ↔ a table-driven loop into a `String` (std has no hex encoder).
fn to_hex(data: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(data.len() * 2);
    for &x in data {
        out.push(DIGITS[(x >> 4) as usize] as char);
        out.push(DIGITS[(x & 15) as usize] as char);
    }
    out
}

/// Convert.FromHexString ↔ two nibbles per byte with `char::to_digit(16)`.
fn from_hex(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    assert!(b.len() % 2 == 0, "odd hex length");
    b.chunks_exact(2)
        .map(|p| {
            let hi = (p[0] as char).to_digit(16).expect("hex digit");
            let lo = (p[1] as char).to_digit(16).expect("hex digit");
            (hi << 4 | lo) as u8
        })
        .collect()
}

fn hex_data(b: &Bencher) -> Vec<u8> {
    let length: usize = b.param_as("length");
    (0..length).map(|i| i as u8).collect()
}

/// The seed's GlobalSetup, RandomNumberGenerator.Fill(new byte[64]): 64 bytes of the kernel's CSPRNG.
fn to_hex_string(b: &mut Bencher) {
    use std::io::Read;
    let mut data = [0u8; 64];
    std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut data)).expect("read /dev/urandom");
    b.iter(move || to_hex(black_box(&data)));
}

fn from_hex_string(b: &mut Bencher) {
    let hex = to_hex(&hex_data(b));
    b.iter(move || from_hex(black_box(&hex)));
}

/// Array.Fill(char[128], 'c') ↔ `fill` on a 128-element `[u16]` kept across calls.
fn array_fill(b: &mut Bencher) {
    let mut chars = vec![0u16; 128];
    b.iter(move || {
        black_box(&mut chars[..]).fill(b'c' as u16);
    });
}

/// `_array.AsSpan().Fill('c')` on the same kind of char[128] ↔ `fill` through a `&mut [u16]`
/// (Rust's slice is the Span; Array.Fill and Span.Fill are one method here).
fn span_fill(b: &mut Bencher) {
    let mut chars = vec![0u16; 128];
    b.iter(move || {
        let span: &mut [u16] = black_box(chars.as_mut_slice());
        span.fill(b'c' as u16);
    });
}

/// Array.Clear(int[10]) ↔ `fill(0)` on a 10-int slice.
fn clear(b: &mut Bencher) {
    let mut ints = [1i32; 10];
    b.iter(move || {
        black_box(&mut ints[..]).fill(0);
    });
}

/// Array.Reverse of 256 ints ↔ `slice::reverse` in place.
fn reverse(b: &mut Bencher) {
    let mut v: Vec<i32> = (0..256).collect();
    b.iter(move || {
        black_box(&mut v[..]).reverse();
    });
}

fn compare_data(b: &Bencher) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let length: usize = b.param_as("Length");
    let orig: Vec<u8> = (0..length).map(|i| i as u8).collect();
    let same = orig.clone();
    let mut last = orig.clone();
    *last.last_mut().unwrap() = last[length - 1].wrapping_add(1);
    (orig, same, last)
}

/// SequenceCompareTo of two equal spans ↔ `Ord::cmp` of byte slices.
fn compare_same(b: &mut Bencher) {
    let (orig, same, _) = compare_data(b);
    b.iter(move || black_box(&orig[..]).cmp(black_box(&same[..])));
}

fn compare_differ_last(b: &mut Bencher) {
    let (orig, _, last) = compare_data(b);
    b.iter(move || black_box(&orig[..]).cmp(black_box(&last[..])));
}

/// Equals(…, OrdinalIgnoreCase) ↔ `str::eq_ignore_ascii_case` (std's case-insensitive equality; the
/// seed's strings are ASCII, where OrdinalIgnoreCase takes its ASCII path).
fn equals_ic() -> bool {
    black_box("Some string").eq_ignore_ascii_case(black_box("sOME sTrinG"))
}

/// ToUpperInvariant ↔ `str::to_uppercase`.
fn to_upper_invariant() -> String {
    black_box("This is a source string that needs to be capitalized.").to_uppercase()
}

/// string.Trim ↔ `str::trim` (returns a subslice: nothing is copied).
fn trim(b: &mut Bencher) {
    let data = b.param("Data").to_string();
    b.iter(move || black_box(&data).trim().len());
}

pub fn register(r: &mut Registry) {
    r.func("IndexOf", index_of)
        .category("arrays_strings")
        .category("quick")
        .meta("seed", "003")
        .meta("section", S003)
        .meta("fidelity", "faithful");
    r.func("IndexOfAny", index_of_any)
        .category("arrays_strings")
        .meta("seed", "003")
        .meta("section", SPAN)
        .meta("seed_method", "IndexOf") // the seed's IndexOf calls IndexOfAny
        .meta("fidelity", "partial: std has no IndexOfAny for bytes; iter().position with either byte (no vectorised search)");
    r.func("Join", join).category("arrays_strings").meta("seed", "000").meta("section", S000).meta("fidelity", "faithful");
    for (name, setup) in [
        ("Yell", yell as fn(&mut Bencher)),
        ("ConcatLines", concat_lines),
        ("NormalizeEndings", normalize_endings),
    ] {
        r.bench(name, setup)
            .group("Replace")
            .category("arrays_strings")
            .meta("seed", "000")
            .meta("section", S000)
            .meta("fidelity", "partial: string.Replace on ~100 KB of generated CRLF text; the seed downloads the complete works of Mark Twain (no network here)");
    }
    r.bench("ToHexString", to_hex_string)
        .group("Hex")
        .category("arrays_strings")
        .meta("seed", "000")
        .meta("section", S000)
        .meta("fidelity", "partial: std has no hex codec; a 16-entry table loop stands for Convert.ToHexString");
    // Not a method of the seed: the reverse conversion, an extra without seed tags.
    r.bench("FromHexString", from_hex_string)
        .param("length", &[100, 10000])
        .group("Hex")
        .category("arrays_strings")
        .meta("extra", true)
        .meta("related", format!("000 · {S000}"));
    r.bench("ArrayFill", array_fill).category("arrays_strings").meta("seed", "000").meta("section", S000).meta("fidelity", "faithful");
    r.bench("SpanFill", span_fill).category("arrays_strings").meta("seed", "000").meta("section", S000).meta("fidelity", "faithful");
    // the seed's New: Array.Clear(array)
    r.bench("Clear", clear).category("arrays_strings").meta("seed", "000").meta("section", S000).meta("seed_method", "New").meta("fidelity", "faithful");
    r.bench("Reverse", reverse).category("arrays_strings").meta("seed", "003").meta("section", S003).meta("fidelity", "faithful");
    r.bench("CompareSame", compare_same)
        .param("Length", &[16, 256])
        .group("SequenceCompareTo")
        .category("arrays_strings")
        .meta("seed", "003")
        .meta("section", SPAN)
        .meta("fidelity", "faithful");
    r.bench("CompareDifferLast", compare_differ_last)
        .param("Length", &[16, 256])
        .group("SequenceCompareTo")
        .category("arrays_strings")
        .meta("seed", "003")
        .meta("section", SPAN)
        .meta("fidelity", "faithful");
    r.func("EqualsIC", equals_ic).category("arrays_strings").meta("seed", "003").meta("section", S003).meta("fidelity", "faithful");
    r.func("ToUpperInvariant", to_upper_invariant)
        .category("arrays_strings")
        .meta("seed", "003")
        .meta("section", SPAN)
        .meta("fidelity", "partial: str::to_uppercase allocates a new String; the seed writes into a reused char buffer");
    r.bench("Trim", trim)
        .param("Data", &["", " abcdefg ", "abcdefg"])
        .category("arrays_strings")
        .meta("seed", "003")
        .meta("section", SPAN)
        .meta("fidelity", "faithful");
}
