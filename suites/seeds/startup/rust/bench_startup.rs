//! Startup experiments: seed 000 (".NET 6": Startup — a "Hello, World" app timed from outside) and
//! seed 003 (".NET Core 3.0": Process — ProcessStartWait on a no-op program). Ported as scenarios:
//! one invocation starts a process with `std::process::Command` and waits for it.
//!
//! The runtime under test is a Rust toolchain, so the started programs are built by it: each
//! case's setup compiles a `println!("Hello, World!")` (HelloWorld) or an empty `fn main() {}`
//! (ProcessStartWait) with the same rustc that built this benchmark (`-C opt-level=3`), into a temp
//! folder that teardown removes. ProcessStartWaitNop starts the seed's exact target, a no-op native
//! program (/bin/true): the same binary for every toolchain, so it measures std's spawn + wait alone.
use perflab::{Bencher, Registry};
use std::fs;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

/// The rustc that compiles this file: perflab's build sets RUSTC for cargo, and rustc inherits it.
const RUSTC: Option<&str> = option_env!("RUSTC");

fn temp_dir(b: &mut Bencher) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("perflab-startup-{}-{}", std::process::id(), n));
    fs::create_dir_all(&dir).expect("create temp dir");
    let d = dir.clone();
    b.teardown(move || {
        let _ = fs::remove_dir_all(&d);
    });
    dir
}

/// Compile `source` with the toolchain under test; returns the executable.
fn build(b: &mut Bencher, name: &str, source: &str) -> PathBuf {
    let dir = temp_dir(b);
    let src = dir.join(format!("{}.rs", name));
    let exe = dir.join(name);
    fs::write(&src, source).unwrap();
    let rustc = RUSTC.unwrap_or("rustc");
    let out = Command::new(rustc)
        .args(["--edition", "2021", "-C", "opt-level=3", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {}", rustc, e));
    assert!(out.status.success(), "{} failed: {}", rustc, String::from_utf8_lossy(&out.stderr));
    exe
}

fn run(exe: &PathBuf) -> i32 {
    let status = Command::new(exe).stdout(Stdio::null()).status().unwrap();
    assert!(status.success(), "{:?} exited with {}", exe, status);
    status.code().unwrap_or(0)
}

/// Start a Hello World built by the toolchain under test and wait for it (stdout to /dev/null).
fn hello_world(b: &mut Bencher) {
    let exe = build(b, "hello", "fn main() {\n    println!(\"Hello, World!\");\n}\n");
    b.iter(move || run(&exe));
}

/// Not the seed's experiment: start an empty `fn main() {}` built by the toolchain under test.
fn process_start_wait_rust_program(b: &mut Bencher) {
    let exe = build(b, "nop", "fn main() {}\n");
    b.iter(move || run(&exe));
}

/// Process.Start(nop).WaitForExit(): the seed's target is a no-op native program (`int main() {
/// return 0; }`), here /bin/true — the same binary for every toolchain: std's spawn + wait alone.
fn process_start_wait(b: &mut Bencher) {
    let exe = PathBuf::from("/bin/true");
    b.iter(move || run(&exe));
}

pub fn register(r: &mut Registry) {
    r.bench("HelloWorld", hello_world)
        .category("startup")
        .category("quick")
        .meta("seed", "000")
        .meta("section", "Startup")
        .meta("scenario", true)
        .meta("fidelity", "faithful");
    r.bench("ProcessStartWait", process_start_wait)
        .category("startup")
        .category("quick")
        .meta("seed", "003")
        .meta("section", "Process")
        .meta("fidelity", "faithful");
    r.bench("ProcessStartWaitRustProgram", process_start_wait_rust_program)
        .category("startup")
        .meta("extra", true)
        .meta("related", "003 · Process");
}
