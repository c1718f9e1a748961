//! Seed 002 "File IO improvements in .NET 6", ported to Rust's std::fs / std::io.
//!
//! Every benchmark is named after the seed's method and keeps its workload and parameters:
//! the seed's (fileSize, userBufferSize) rows (see `register`). The seed's stream buffer
//! (4096 bytes) ↔ `BufReader`/`BufWriter::with_capacity(4096, file)`; the seed's `*_NoBuffering`
//! (bufferSize 1) ↔ the bare `File` (one read(2)/write(2) per user buffer). "Async" forms hand every
//! read/write to a pool thread and wait for it (what .NET does on Unix: a blocking call on a
//! thread-pool thread; std has no async runtime). The 100 MiB cases are in category "large".
//! Files live in a temporary folder made by each case's setup and removed by its teardown.
use perflab::{black_box, Bencher, Registry};
use std::fs::{self, File, OpenOptions};
use std::io::{BufReader, BufWriter, IoSlice, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;

#[path = "../../common/rust/seed_executor.rs"]
mod seed_executor;
use seed_executor::Executor;

const KIB: usize = 1024;
const MIB: usize = 1024 * 1024;
const FOUR_KIB: usize = 4096;
const SEED: &str = "002";

// -- helpers ----------------------------------------------------------------------------------

/// A fresh folder under the system temp dir; the case's teardown removes it.
fn temp_dir(b: &mut Bencher, prefix: &str) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("{}{}-{}", prefix, std::process::id(), n));
    fs::create_dir_all(&dir).expect("create temp dir");
    let d = dir.clone();
    b.teardown(move || {
        let _ = fs::remove_dir_all(&d);
    });
    dir
}

struct Paths {
    src: PathBuf,
    dst: PathBuf,
}

/// The case's temp folder with `source.bin` of `file_size` bytes (0..=255 repeated).
fn setup_files(b: &mut Bencher, file_size: usize) -> Paths {
    let dir = temp_dir(b, "perflab-seed002-");
    let src = dir.join("source.bin");
    let chunk: Vec<u8> = (0..MIB).map(|i| i as u8).collect();
    let mut f = BufWriter::new(File::create(&src).expect("create source"));
    let mut left = file_size;
    while left > 0 {
        let n = left.min(chunk.len());
        f.write_all(&chunk[..n]).expect("write source");
        left -= n;
    }
    f.flush().expect("flush source");
    Paths { src, dst: dir.join("destination.bin") }
}

fn meta(def: &mut perflab::Def, section: &str) {
    def.meta("seed", SEED).meta("section", section);
}

/// The seed tags plus how faithful the port is (suites/seeds/README.md, "Fidelity").
fn audited(def: &mut perflab::Def, section: &str, fidelity: &str) {
    meta(def, section);
    def.meta("fidelity", fidelity);
}

/// Not a method of the seed: no seed tags, so no claim of the seed is checked on it.
fn extra(def: &mut perflab::Def, section: &str) {
    def.meta("extra", true).meta("related", format!("{SEED} · {section}"));
}

const FAITHFUL: &str = "faithful";
const SMALL: &str = "partial: 10 MB instead of the seed's 100 MB (same 16000-byte writes; the 100 MB case is in `large`)";
const OWN_POOL: &str = "partial: std has no async runtime; each call is handed to the port's own pool thread (seed_executor.rs)";

// -- Seek/Position ----------------------------------------------------------------------------

fn seek_forward_on<S: Seek>(mut s: S, file_size: u64) -> u64 {
    let mut pos = 0;
    for offset in 0..file_size {
        pos = s.seek(SeekFrom::Start(offset)).unwrap();
    }
    pos
}

fn seek_backward_on<S: Seek>(mut s: S, file_size: i64) -> u64 {
    let mut pos = 0;
    for offset in 1..=file_size {
        pos = s.seek(SeekFrom::End(-offset)).unwrap();
    }
    pos
}

/// Open the 1 KiB file and seek to every offset from the beginning (seed: FileStream.Seek).
fn seek_forward(b: &mut Bencher) {
    let file_size: usize = b.param_as("fileSize");
    let buffering: usize = b.param_as("buffering");
    let p = setup_files(b, file_size);
    b.iter(move || {
        let f = File::open(&p.src).unwrap();
        if buffering == 0 {
            seek_forward_on(f, file_size as u64)
        } else {
            seek_forward_on(BufReader::with_capacity(buffering, f), file_size as u64)
        }
    });
}

/// Seek to every offset counted from the end (SeekOrigin.End).
fn seek_backward(b: &mut Bencher) {
    let file_size: usize = b.param_as("fileSize");
    let buffering: usize = b.param_as("buffering");
    let p = setup_files(b, file_size);
    b.iter(move || {
        let f = File::open(&p.src).unwrap();
        if buffering == 0 {
            seek_backward_on(f, file_size as i64)
        } else {
            seek_backward_on(BufReader::with_capacity(buffering, f), file_size as i64)
        }
    });
}

// -- Length -----------------------------------------------------------------------------------

/// Open the file, then ask for its length 1024 times (ops = 1024): `metadata().len()` (fstat/statx)
/// or `stream_position` + `seek(End(0))` + seek back.
fn get_length(b: &mut Bencher) {
    let how = b.param("how").to_string();
    let p = setup_files(b, MIB);
    let fstat = how == "fstat";
    b.iter(move || {
        let mut r = BufReader::with_capacity(FOUR_KIB, File::open(&p.src).unwrap());
        let mut length = 0;
        if fstat {
            for _ in 0..KIB {
                length = r.get_ref().metadata().unwrap().len();
            }
        } else {
            for _ in 0..KIB {
                let pos = r.stream_position().unwrap();
                length = r.seek(SeekFrom::End(0)).unwrap();
                r.seek(SeekFrom::Start(pos)).unwrap();
            }
        }
        length
    });
}

// -- Read & Write (sync) ----------------------------------------------------------------------

fn read_to_end<R: Read>(mut r: R, buf: &mut [u8], file_size: usize) -> usize {
    let mut total = 0;
    while total < file_size {
        let n = r.read(buf).unwrap();
        if n == 0 {
            break;
        }
        total += n;
    }
    total
}

fn write_blocks<W: Write>(mut w: W, buf: &[u8], count: usize) {
    for _ in 0..count {
        w.write_all(buf).unwrap();
    }
    w.flush().unwrap();
}

/// Read the whole file with a user buffer, through a 4 KiB `BufReader` or unbuffered.
fn read(b: &mut Bencher, buffered: bool) {
    let file_size: usize = b.param_as("fileSize");
    let user: usize = b.param_as("userBufferSize");
    let p = setup_files(b, file_size);
    let mut buf = vec![0u8; user];
    b.iter(move || {
        let f = File::open(&p.src).unwrap();
        if buffered {
            read_to_end(BufReader::with_capacity(FOUR_KIB, f), &mut buf, file_size)
        } else {
            read_to_end(f, &mut buf, file_size)
        }
    });
}

/// Create the file and write it with fileSize/userBufferSize writes, through a 4 KiB `BufWriter`
/// or unbuffered.
fn write(b: &mut Bencher, buffered: bool) {
    let file_size: usize = b.param_as("fileSize");
    let user: usize = b.param_as("userBufferSize");
    let p = setup_files(b, file_size);
    let buf = vec![0u8; user];
    b.iter(move || {
        let f = File::create(&p.dst).unwrap();
        if buffered {
            write_blocks(BufWriter::with_capacity(FOUR_KIB, f), &buf, file_size / user)
        } else {
            write_blocks(f, &buf, file_size / user)
        }
    });
}

// -- ReadAsync / WriteAsync -------------------------------------------------------------------

fn read_async_on<R: Read + Send + 'static>(ex: &Executor, mut r: R, buf: &mut Vec<u8>, file_size: usize) -> usize {
    let mut total = 0;
    let mut b = std::mem::take(buf);
    while total < file_size {
        let (r2, b2, n) = ex.run(move || {
            let n = r.read(&mut b).unwrap();
            (r, b, n)
        });
        r = r2;
        b = b2;
        if n == 0 {
            break;
        }
        total += n;
    }
    *buf = b;
    total
}

fn write_async_on<W: Write + Send + 'static>(ex: &Executor, mut w: W, buf: &mut Vec<u8>, count: usize) {
    let mut b = std::mem::take(buf);
    for _ in 0..count {
        let (w2, b2) = ex.run(move || {
            w.write_all(&b).unwrap();
            (w, b)
        });
        w = w2;
        b = b2;
    }
    let (_, b2) = ex.run(move || {
        w.flush().unwrap();
        (w, b)
    });
    *buf = b2;
}

/// Read the whole file, each read run on the executor's thread and awaited.
fn read_async(b: &mut Bencher, buffered: bool) {
    let file_size: usize = b.param_as("fileSize");
    let user: usize = b.param_as("userBufferSize");
    let p = setup_files(b, file_size);
    let mut buf = vec![0u8; user];
    let ex = Executor::new();
    b.iter(move || {
        let f = File::open(&p.src).unwrap();
        if buffered {
            read_async_on(&ex, BufReader::with_capacity(FOUR_KIB, f), &mut buf, file_size)
        } else {
            read_async_on(&ex, f, &mut buf, file_size)
        }
    });
}

/// Write the whole file, each write run on the executor's thread and awaited.
fn write_async(b: &mut Bencher, buffered: bool) {
    let file_size: usize = b.param_as("fileSize");
    let user: usize = b.param_as("userBufferSize");
    let p = setup_files(b, file_size);
    let mut buf = vec![0u8; user];
    let ex = Executor::new();
    b.iter(move || {
        let f = File::create(&p.dst).unwrap();
        if buffered {
            write_async_on(&ex, BufWriter::with_capacity(FOUR_KIB, f), &mut buf, file_size / user)
        } else {
            write_async_on(&ex, f, &mut buf, file_size / user)
        }
    });
}

// -- RandomAccess (thread-safe, offset-based) -------------------------------------------------

/// `threads` threads each handle an interleaved share of the blocks, all on ONE `File`, with
/// offset-based calls (`read_exact_at`/`write_all_at`: pread/pwrite) that never touch the shared
/// file offset.
fn positional(b: &mut Bencher, write: bool) {
    let file_size: usize = b.param_as("fileSize");
    let user: usize = b.param_as("userBufferSize");
    let threads: usize = b.param_as("threads");
    let p = setup_files(b, file_size);
    let blocks = file_size / user;
    b.iter(move || {
        let file = if write {
            OpenOptions::new().read(true).write(true).create(true).mode(0o600).open(&p.dst).unwrap()
        } else {
            File::open(&p.src).unwrap()
        };
        let work = |start: usize| {
            let mut buf = vec![0u8; user];
            let mut blk = start;
            while blk < blocks {
                let off = (blk * user) as u64;
                if write {
                    file.write_all_at(&buf, off).unwrap();
                } else {
                    file.read_exact_at(&mut buf, off).unwrap();
                }
                blk += threads;
            }
        };
        if threads == 1 {
            work(0);
        } else {
            thread::scope(|s| {
                for i in 0..threads {
                    let work = &work;
                    s.spawn(move || work(i));
                }
            });
        }
    });
}

// -- Scatter/Gather ---------------------------------------------------------------------------

const FILE_SIZE: usize = 100_000_000;
const GATHER_BUFFER: usize = 16000;

fn open_create(path: &Path) -> File {
    OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(path).unwrap()
}

fn write_all_vectored(f: &mut File, mut bufs: &mut [IoSlice<'_>]) {
    while !bufs.is_empty() {
        let n = f.write_vectored(bufs).unwrap();
        assert!(n > 0, "write_vectored wrote nothing");
        IoSlice::advance_slices(&mut bufs, n);
    }
}

/// `total` bytes written with one pwrite per 16000-byte buffer (`buffers == 1`) or one writev of
/// 4 × 16000 bytes per call; the file is removed after closing (FileOptions.DeleteOnClose).
fn gather(path: &Path, buf: &[u8], total: usize, buffers: usize) {
    let mut file = open_create(path);
    if buffers == 1 {
        let mut written = 0u64;
        for _ in 0..total / GATHER_BUFFER {
            file.write_all_at(buf, written).unwrap();
            written += GATHER_BUFFER as u64;
        }
    } else {
        for _ in 0..total / (GATHER_BUFFER * buffers) {
            let mut slices = [IoSlice::new(buf), IoSlice::new(buf), IoSlice::new(buf), IoSlice::new(buf)];
            write_all_vectored(&mut file, &mut slices[..buffers]);
        }
    }
    drop(file);
    fs::remove_file(path).unwrap();
}

fn gather_bench(b: &mut Bencher, buffers: usize) {
    let total: usize = b.param_as("FileSize");
    let p = setup_files(b, 0);
    let buf = vec![0u8; GATHER_BUFFER];
    b.iter(move || gather(&p.dst, &buf, total, buffers));
}

// -- Preallocation ----------------------------------------------------------------------------

// std has no fallocate: libc's posix_fallocate (std links libc already; no crate is involved) is
// what .NET 6 calls on Unix for FileStreamOptions.PreallocationSize.
extern "C" {
    fn posix_fallocate(fd: std::os::raw::c_int, offset: i64, len: i64) -> std::os::raw::c_int;
}

fn prealloc(path: &Path, buf: &[u8], total: usize, specify: bool) {
    let file = open_create(path);
    if specify {
        let rc = unsafe { posix_fallocate(file.as_raw_fd(), 0, total as i64) };
        assert_eq!(rc, 0, "posix_fallocate failed: errno {}", rc);
    }
    let mut written = 0u64;
    for _ in 0..total / GATHER_BUFFER {
        file.write_all_at(buf, written).unwrap();
        written += GATHER_BUFFER as u64;
    }
    drop(file);
    fs::remove_file(path).unwrap();
}

fn prealloc_bench(b: &mut Bencher, total: usize) {
    let specify: bool = b.param_as("specifyPreallocationSize");
    let p = setup_files(b, 0);
    let buf = vec![0u8; GATHER_BUFFER];
    b.iter(move || prealloc(&p.dst, &buf, black_box(total), specify));
}

// -- registration -----------------------------------------------------------------------------

pub fn register(r: &mut Registry) {
    // the seed's rows (its result tables; it does not show SyncArguments/AsyncArguments): 1 MiB with a
    // 512- or 4096-byte user buffer, 16384 for the unbuffered forms, WriteAsync also 1 KiB × 1 KiB
    let sizes = [MIB];
    let buffers = [512, 4096];
    let unbuffered = [16384];
    let large = [100 * MIB];

    let d = r.bench("SeekForward", seek_forward).param("fileSize", &[KIB]).param("buffering", &[FOUR_KIB, 0]);
    d.category("file_io").category("quick");
    audited(d, "Seek/Position", FAITHFUL);
    let d = r.bench("SeekBackward", seek_backward).param("fileSize", &[KIB]).param("buffering", &[FOUR_KIB, 0]);
    d.category("file_io");
    audited(d, "Seek/Position", FAITHFUL);
    let d = r.bench("GetLength", get_length).param("how", &["fstat", "seek_end"]).ops(KIB as u64);
    d.category("file_io");
    audited(d, "Length", "partial: how=fstat/seek_end replaces the seed's FileShare axis (nothing caches the length)");

    // Read & Write, ReadAsync, WriteAsync: the seed's 1 MiB rows
    type Setup = fn(&mut Bencher);
    // (name, setup, section, fidelity); no fidelity: not a method of the seed (its sync
    // Read/Write have no _NoBuffering forms), so an extra.
    let grid: [(&str, Setup, &str, Option<&str>); 8] = [
        ("Read", |b| read(b, true), "Read & Write", Some(FAITHFUL)),
        ("Read_NoBuffering", |b| read(b, false), "Read & Write", None),
        ("Write", |b| write(b, true), "Read & Write", Some(FAITHFUL)),
        ("Write_NoBuffering", |b| write(b, false), "Read & Write", None),
        ("ReadAsync", |b| read_async(b, true), "ReadAsync", Some(OWN_POOL)),
        ("ReadAsync_NoBuffering", |b| read_async(b, false), "ReadAsync", Some(OWN_POOL)),
        ("WriteAsync", |b| write_async(b, true), "WriteAsync", Some(OWN_POOL)),
        ("WriteAsync_NoBuffering", |b| write_async(b, false), "WriteAsync", Some(OWN_POOL)),
    ];
    for (name, setup, section, fidelity) in grid {
        let user: &[usize] = if name.ends_with("_NoBuffering") { &unbuffered } else { &buffers };
        let d = r.bench(name, setup).param("fileSize", &sizes).param("userBufferSize", user);
        d.category("file_io");
        match fidelity {
            Some(f) => audited(d, section, f),
            None => extra(d, section),
        }
    }
    // The seed's one 1 KiB row: WriteAsync (1 KiB, 1 KiB).
    let d = r.bench("WriteAsync", |b| write_async(b, true)).param("fileSize", &[KIB]).param("userBufferSize", &[KIB]);
    d.group("bench_file_io_small").category("file_io");
    audited(d, "WriteAsync", OWN_POOL);
    // The seed's 100 MiB rows: 4096-byte user buffer buffered, 16384 unbuffered. Category "large".
    for (name, setup, section, fidelity) in grid {
        let user = if name.ends_with("_NoBuffering") { 16384 } else { 4096 };
        let d = r.bench(name, setup).param("fileSize", &large).param("userBufferSize", &[user]);
        d.group("bench_file_io_large").category("large");
        match fidelity {
            Some(f) => audited(d, section, f),
            None => extra(d, section),
        }
    }

    let d = r.bench("RandomAccessRead", |b| positional(b, false))
        .param("fileSize", &[MIB])
        .param("userBufferSize", &[4096])
        .param("threads", &[1, 4]);
    d.category("file_io");
    extra(d, "RandomAccess");
    let d = r.bench("RandomAccessWrite", |b| positional(b, true))
        .param("fileSize", &[MIB])
        .param("userBufferSize", &[4096])
        .param("threads", &[1, 4]);
    d.category("file_io");
    extra(d, "RandomAccess");

    // Scatter/Gather: 100 MB in "large", a 10 MB pair for file_io/quick
    let d = r.bench("Write", |b| gather_bench(b, 1)).param("FileSize", &[FILE_SIZE]);
    d.group("ScatterGather_large").category("large");
    audited(d, "Scatter/Gather", FAITHFUL);
    let d = r.bench("WriteGather", |b| gather_bench(b, 4)).param("FileSize", &[FILE_SIZE]);
    d.group("ScatterGather_large").category("large");
    // std's write_vectored is writev at the file's position; the seed's RandomAccess.Write(handle,
    // buffers, offset) is pwritev (issue 39)
    audited(d, "Scatter/Gather", "partial: writev at the file's position, where the seed's RandomAccess.Write is pwritev at an offset");
    let d = r.bench("Write", |b| gather_bench(b, 1)).param("FileSize", &[FILE_SIZE / 10]);
    d.group("ScatterGather").category("file_io").category("quick");
    audited(d, "Scatter/Gather", SMALL);
    let d = r.bench("WriteGather", |b| gather_bench(b, 4)).param("FileSize", &[FILE_SIZE / 10]);
    d.group("ScatterGather").category("file_io").category("quick");
    audited(d, "Scatter/Gather", SMALL);

    // Preallocation: 100 MB in "large", 10 MB for file_io/quick
    let d = r.bench("PreallocationSize", |b| prealloc_bench(b, FILE_SIZE))
        .param("specifyPreallocationSize", &[false, true]);
    d.group("bench_file_io_large").category("large");
    audited(d, "Preallocation", FAITHFUL);
    let d = r.bench("PreallocationSize", |b| prealloc_bench(b, FILE_SIZE / 10))
        .param("specifyPreallocationSize", &[false, true]);
    d.category("file_io").category("quick").meta("file_size", FILE_SIZE / 10);
    audited(d, "Preallocation", SMALL);
}
