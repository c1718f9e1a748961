//! Seed 000 (".NET 6": Cryptography), the parts Rust's std can do: RandomNumberGenerator.GetBytes
//! ↔ opening the kernel's CSPRNG (/dev/urandom), reading 8 bytes and closing it, and the seed's ToBase64Transform over
//! 10 000 000 bytes ↔ a hand-written table-driven base64 encoder (std has no base64).
//! Left out: Pbkdf2 and HashData (std has no SHA-256/HMAC), AES (no ciphers).
use perflab::{black_box, Bencher, Registry};
use std::fs::File;
use std::io::Read;

const META_SEED: &str = "000";
const SECTION: &str = "Cryptography";

/// `using (var rng = RandomNumberGenerator.Create()) rng.GetBytes(new byte[8])` ↔ open
/// /dev/urandom, read 8 bytes, close it: the seed times creating the generator too.
fn get_bytes(b: &mut Bencher) {
    b.iter(move || {
        let mut urandom = File::open("/dev/urandom").expect("open /dev/urandom");
        let mut bytes = [0u8; 8];
        urandom.read_exact(&mut bytes).unwrap();
        bytes
    });
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding: every 3 input bytes → 4 characters, written into `out` (cleared
/// first; its capacity is kept, as the seed's MemoryStream is reused with `Position = 0`).
fn base64_encode_into(data: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.resize((data.len() + 2) / 3 * 4, 0);
    let input = data.chunks_exact(3);
    let rest = input.remainder();
    let mut output = out.chunks_exact_mut(4);
    for (c, o) in input.zip(&mut output) {
        let n = (c[0] as u32) << 16 | (c[1] as u32) << 8 | c[2] as u32;
        o[0] = ALPHABET[(n >> 18) as usize & 63];
        o[1] = ALPHABET[(n >> 12) as usize & 63];
        o[2] = ALPHABET[(n >> 6) as usize & 63];
        o[3] = ALPHABET[n as usize & 63];
    }
    if !rest.is_empty() {
        let o = output.next().unwrap();
        let n = (rest[0] as u32) << 16 | rest.get(1).map_or(0, |&x| (x as u32) << 8);
        o[0] = ALPHABET[(n >> 18) as usize & 63];
        o[1] = ALPHABET[(n >> 12) as usize & 63];
        o[2] = if rest.len() == 2 { ALPHABET[(n >> 6) as usize & 63] } else { b'=' };
        o[3] = b'=';
    }
}

fn base64_encode(data: &[u8]) -> String {
    let mut out = Vec::new();
    base64_encode_into(data, &mut out);
    String::from_utf8(out).unwrap()
}

/// CryptoStream + ToBase64Transform over 10 000 000 bytes into a reused MemoryStream ↔
/// `base64_encode_into` a reused buffer.
fn encode(b: &mut Bencher) {
    for (input, expected) in [(&b""[..], ""), (b"f", "Zg=="), (b"fo", "Zm8="), (b"foo", "Zm9v"), (b"perflab!", "cGVyZmxhYiE=")] {
        assert_eq!(base64_encode(input), expected);
    }
    let data: Vec<u8> = (0..10_000_000usize).map(|i| i as u8).collect();
    let mut destination = Vec::new();
    b.iter(move || {
        base64_encode_into(black_box(&data), &mut destination);
        destination.len()
    });
}

pub fn register(r: &mut Registry) {
    r.bench("GetBytes", get_bytes)
        .category("crypto")
        .category("quick")
        .meta("seed", META_SEED)
        .meta("section", SECTION)
        .meta("fidelity", "partial: std has no RNG API; opening /dev/urandom, reading 8 bytes and closing it stands for Create + GetBytes + Dispose");
    r.bench("Encode", encode)
        .group("Base64")
        .category("crypto")
        .meta("seed", META_SEED)
        .meta("section", SECTION)
        .meta("fidelity", "partial: std has no base64; the port's own table-driven encoder, into a reused buffer, stands for ToBase64Transform");
}
