//! Seed 000 (".NET 6": IO), ported to Rust's std::fs / std::io: reading a 10 MB file with a 1 KiB
//! user buffer through a stream buffer of 1 (none: the bare `File`) or 4096 bytes (`BufReader`),
//! synchronously and with every read handed to a pool thread and awaited (ReadAsync; std has no
//! async runtime, and the seed's IsAsync axis has no counterpart), and File.WriteAllText(Async) of
//! 100 000 characters (`std::fs::write`). The seed's Compress (BrotliStream) is left out: std has
//! no compression.
use perflab::{Bencher, Registry};
use std::fs::{self, File};
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

#[path = "../../common/rust/seed_executor.rs"]
mod seed_executor;
use seed_executor::Executor;

const SEED: &str = "000";
const SECTION: &str = "IO";
const FILE_LEN: usize = 10_000_000;

fn temp_dir(b: &mut Bencher) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("perflab-seed000-io-{}-{}", std::process::id(), n));
    fs::create_dir_all(&dir).expect("create temp dir");
    let d = dir.clone();
    b.teardown(move || {
        let _ = fs::remove_dir_all(&d);
    });
    dir
}

/// 10 MB of pseudo-random bytes (xorshift64*, seed 42: the seed's `new Random(42).NextBytes`).
fn random_bytes(n: usize) -> Vec<u8> {
    let mut x: u64 = 42;
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        out.extend_from_slice(&x.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    out.truncate(n);
    out
}

// -- FileStreamRead: the stream is opened once per case; each call rewinds and reads to the end --

fn read_all<R: Read + Seek>(r: &mut R, buf: &mut [u8]) -> usize {
    r.seek(SeekFrom::Start(0)).unwrap();
    let mut total = 0;
    loop {
        let n = r.read(buf).unwrap();
        if n == 0 {
            return total;
        }
        total += n;
    }
}

fn read_all_async<R: Read + Seek + Send + 'static>(ex: &Executor, slot: &mut Option<(R, Vec<u8>)>) -> usize {
    let (mut r, mut buf) = slot.take().unwrap();
    r.seek(SeekFrom::Start(0)).unwrap();
    let mut total = 0;
    loop {
        let (r2, b2, n) = ex.run(move || {
            let n = r.read(&mut buf).unwrap();
            (r, buf, n)
        });
        r = r2;
        buf = b2;
        if n == 0 {
            break;
        }
        total += n;
    }
    *slot = Some((r, buf));
    total
}

fn setup_file(b: &mut Bencher) -> PathBuf {
    let path = temp_dir(b).join("data.bin");
    fs::write(&path, random_bytes(FILE_LEN)).expect("write data file");
    path
}

/// Read: rewind, then read to the end with a 1 KiB buffer (BufferSize 1 ↔ the bare File).
fn read(b: &mut Bencher) {
    let buffer_size: usize = b.param_as("BufferSize");
    let path = setup_file(b);
    let file = File::open(&path).unwrap();
    let mut buf = vec![0u8; 1024];
    if buffer_size <= 1 {
        let mut f = file;
        b.iter(move || read_all(&mut f, &mut buf));
    } else {
        let mut f = BufReader::with_capacity(buffer_size, file);
        b.iter(move || read_all(&mut f, &mut buf));
    }
}

/// ReadAsync: the same, each 1 KiB read run on the executor's thread and awaited.
fn read_async(b: &mut Bencher) {
    let buffer_size: usize = b.param_as("BufferSize");
    let path = setup_file(b);
    let file = File::open(&path).unwrap();
    let ex = Executor::new();
    let buf = vec![0u8; 1024];
    if buffer_size <= 1 {
        let mut slot = Some((file, buf));
        b.iter(move || read_all_async(&ex, &mut slot));
    } else {
        let mut slot = Some((BufReader::with_capacity(buffer_size, file), buf));
        b.iter(move || read_all_async(&ex, &mut slot));
    }
}

// -- WriteAllText ----------------------------------------------------------------------------

fn contents() -> Arc<String> {
    Arc::new((0..100_000).map(|i| (b'a' + (i % 26) as u8) as char).collect())
}

/// File.WriteAllText ↔ std::fs::write: create/truncate, write 100 000 UTF-8 bytes, close.
fn write_all_text(b: &mut Bencher) {
    let path = temp_dir(b).join("text.txt");
    let text = contents();
    b.iter(move || fs::write(&path, text.as_bytes()).unwrap());
}

/// WriteAllTextAsync: the same `fs::write`, run on the executor's thread and awaited.
fn write_all_text_async(b: &mut Bencher) {
    let path = Arc::new(temp_dir(b).join("text.txt"));
    let text = contents();
    let ex = Executor::new();
    b.iter(move || {
        let (path, text) = (path.clone(), text.clone());
        ex.run(move || fs::write(&*path, text.as_bytes()).unwrap())
    });
}

const OWN_POOL: &str = "partial: std has no async runtime; each call is handed to the port's own pool thread (seed_executor.rs)";

pub fn register(r: &mut Registry) {
    r.bench("Read", read)
        .param("BufferSize", &[1, 4096])
        .group("FileStreamRead")
        .category("file_io")
        .meta("seed", SEED)
        .meta("section", SECTION)
        .meta("fidelity", "faithful");
    r.bench("ReadAsync", read_async)
        .param("BufferSize", &[1, 4096])
        .group("FileStreamRead")
        .category("file_io")
        .meta("seed", SEED)
        .meta("section", SECTION)
        .meta("fidelity", OWN_POOL);
    r.bench("WriteAllTextAsync", write_all_text_async)
        .group("WriteAllText")
        .category("file_io")
        .meta("seed", SEED)
        .meta("section", SECTION)
        .meta("fidelity", OWN_POOL);
    // Not a method of the seed (it times WriteAllTextAsync only): an extra, without seed tags.
    r.bench("WriteAllText", write_all_text)
        .group("WriteAllText")
        .category("file_io")
        .meta("extra", true)
        .meta("related", "000 · IO");
}
