//! perflab's Rust worker: the benchmark registration API and the protocol v2 client (std only).
//!
//! A benchmark file defines `pub fn register(r: &mut perflab::Registry)`:
//!
//! ```no_run
//! use perflab::{black_box, Bencher, Registry};
//!
//! fn sum(b: &mut Bencher) {
//!     // setup: runs once per case (benchmark × parameter values), outside the timed region
//!     let n: usize = b.param_as("n");
//!     let data: Vec<u64> = (0..n as u64).collect();
//!     // the routine: called `invocations` times per timed iteration; its result is black-boxed
//!     b.iter(move || black_box(&data).iter().sum::<u64>());
//! }
//!
//! pub fn register(r: &mut Registry) {
//!     r.bench("sum", sum).param("n", &[10, 1000]);
//!     r.bench("noop", |b| b.iter(|| ())).baseline();
//! }
//! # fn main() {}
//! ```
//!
//! perflab generates the binary (`perflab::main!(file1::register, file2::register)`) in its cache and
//! starts it with PERFLAB_CONNECT / PERFLAB_TOKEN; see protocol/PROTOCOL.md and workers/rust/README.md.

pub mod json;

use std::any::Any;
use std::io::{BufRead, BufReader, Write};
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::net::TcpStream;
use std::panic::{self, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

pub use std::hint::black_box;

use json::{obj, s, Json};

pub const PROTOCOL_VERSION: i64 = 2;

// ------------------------------------------------------------------------------------------------
// Allocation counting (diagnose stage only)
// ------------------------------------------------------------------------------------------------

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOC_BYTES: AtomicU64 = AtomicU64::new(0);
static ALLOCS: AtomicU64 = AtomicU64::new(0);

/// The current case's rates (criterion's `Throughput`): name → quantity per op, unit, base. The
/// diagnostics reply carries them; the host divides them by the mean it measured.
static RATES: Mutex<Vec<(String, Json)>> = Mutex::new(Vec::new());

/// A `#[global_allocator]` wrapper around the system allocator that counts allocations while the
/// diagnose stage runs (one relaxed load per allocation otherwise).
pub struct CountingAlloc;

unsafe impl std::alloc::GlobalAlloc for CountingAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
            ALLOC_BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        }
        std::alloc::System.alloc(layout)
    }
    #[inline]
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
            ALLOC_BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        }
        std::alloc::System.alloc_zeroed(layout)
    }
    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        std::alloc::System.dealloc(ptr, layout)
    }
    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCS.fetch_add(1, Ordering::Relaxed);
            ALLOC_BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        }
        std::alloc::System.realloc(ptr, layout, new_size)
    }
}

#[cfg(feature = "count-allocs")]
#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

// ------------------------------------------------------------------------------------------------
// Authoring API
// ------------------------------------------------------------------------------------------------

/// The benchmarks of one binary, filled by each file's `register` function.
#[derive(Default)]
pub struct Registry {
    defs: Vec<Def>,
}

/// One registered benchmark; the builder methods set its options.
pub struct Def {
    name: String,
    group: Option<String>,
    file: String,
    line: u32,
    baseline: bool,
    ops: u64,
    params: Vec<(String, Vec<String>)>,
    categories: Vec<String>,
    description: String,
    iteration_setup: bool,
    meta: Vec<(String, Json)>,
    setup: Box<dyn Fn(&mut Bencher)>,
    /// The setup runs the benchmark's own code, which hands its routine to the worker from inside
    /// (`Bencher::__serve_*`): the criterion compatibility layer (workers/rust/criterion).
    scoped: bool,
    /// The file the benchmark belongs to when its call site is elsewhere (a helper module).
    origin: Option<String>,
    /// Why this benchmark cannot run (an unsupported API): it fails alone at load with this message.
    unsupported: Option<String>,
}

impl Registry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Register a benchmark. `setup` runs once per case (outside timing) and must call
    /// [`Bencher::iter`] with the routine to time.
    #[track_caller]
    pub fn bench<F: Fn(&mut Bencher) + 'static>(&mut self, name: &str, setup: F) -> &mut Def {
        let loc = panic::Location::caller();
        self.defs.push(Def {
            name: name.to_string(),
            group: None,
            file: loc.file().to_string(),
            line: loc.line(),
            baseline: false,
            ops: 1,
            params: Vec::new(),
            categories: Vec::new(),
            description: String::new(),
            iteration_setup: false,
            meta: Vec::new(),
            setup: Box::new(setup),
            scoped: false,
            origin: None,
            unsupported: None,
        });
        self.defs.last_mut().unwrap()
    }

    /// For compatibility layers: a benchmark whose `setup` runs the benchmark's own code, which calls
    /// one of the `Bencher::__serve_*` methods with its (borrowing, non-'static) routine; the worker
    /// then serves the host's `run` requests from inside that call until the case is torn down.
    /// `origin` is the benchmark file (what `load` selects by), `file:line` the call site.
    #[doc(hidden)]
    pub fn __scoped<F: Fn(&mut Bencher) + 'static>(
        &mut self,
        name: &str,
        origin: &str,
        file: &str,
        line: u32,
        setup: F,
    ) -> &mut Def {
        let def = self.bench(name, setup);
        def.scoped = true;
        def.origin = Some(origin.to_string());
        def.file = file.to_string();
        def.line = line;
        def
    }

    /// Register a routine that needs no setup: `r.func("parse", || parse(black_box(INPUT)))`.
    #[track_caller]
    pub fn func<T: 'static, F: Fn() -> T + Clone + 'static>(&mut self, name: &str, f: F) -> &mut Def {
        self.bench(name, move |b| b.iter(f.clone()))
    }

    pub fn len(&self) -> usize {
        self.defs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }
}

impl Def {
    /// A parameter axis; every combination of axes is a case. Values are shown as given
    /// (`Display`) and read back in setup with [`Bencher::param`] / [`Bencher::param_as`].
    pub fn param<V: ToString>(&mut self, name: &str, values: &[V]) -> &mut Self {
        self.params.push((name.to_string(), values.iter().map(|v| v.to_string()).collect()));
        self
    }
    /// Rows of the same group are shown relative to this one.
    pub fn baseline(&mut self) -> &mut Self {
        self.baseline = true;
        self
    }
    /// Operations performed by one call of the routine (the host divides by it).
    pub fn ops(&mut self, n: u64) -> &mut Self {
        self.ops = n.max(1);
        self
    }
    pub fn category(&mut self, c: &str) -> &mut Self {
        self.categories.push(c.to_string());
        self
    }
    pub fn description(&mut self, d: &str) -> &mut Self {
        self.description = d.to_string();
        self
    }
    /// Ask the host for one invocation per iteration (for routines given with
    /// [`Bencher::iter_batched`] whose input is expensive to prepare or large).
    pub fn iteration_setup(&mut self) -> &mut Self {
        self.iteration_setup = true;
        self
    }
    /// A free-form `meta` entry, copied into the results (e.g. `.meta("seed", "002")`,
    /// `.meta("scenario", true)`); setting a key again replaces its value.
    pub fn meta<V: Into<Json>>(&mut self, key: &str, value: V) -> &mut Self {
        let value = value.into();
        match self.meta.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => self.meta.push((key.to_string(), value)),
        }
        self
    }
    /// The group rows are listed under (default: the file's stem).
    pub fn group(&mut self, g: &str) -> &mut Self {
        self.group = Some(g.to_string());
        self
    }
    /// For compatibility layers: this benchmark uses an API perflab does not support; it fails
    /// alone at load with `why` (one line naming the API), the others still run.
    #[doc(hidden)]
    pub fn __unsupported(&mut self, why: &str) -> &mut Self {
        self.unsupported = Some(why.to_string());
        self
    }
}

/// How the inputs of a batched routine are prepared: all of an iteration's at once, or in batches
/// each timed on its own (criterion's `BatchSize`), which bounds the memory the inputs take.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum Batches {
    /// One batch per iteration.
    Whole,
    /// This many batches per iteration (criterion's SmallInput is 10, LargeInput 1000).
    Count(u64),
    /// Batches of this many invocations (criterion's PerIteration is 1).
    Size(u64),
}

impl Batches {
    fn per_batch(self, n: u64) -> u64 {
        match self {
            Batches::Whole => n,
            Batches::Count(k) => n.div_ceil(k.max(1)),
            Batches::Size(s) => s,
        }
        .clamp(1, n.max(1))
    }
}

/// While a scoped benchmark's own code runs: where to serve the host from, and what came after.
struct Scoped {
    conn: *mut Conn,
    setup_id: Json,
    served: bool,
    /// The request that ended the case (a teardown, or anything but `run`); None: the host left.
    stash: Option<String>,
}

/// Given to a benchmark's setup: its parameter values, and where the routine to time is handed over.
pub struct Bencher {
    params: Vec<(String, String)>,
    routine: Option<Box<dyn Routine>>,
    teardown: Option<Box<dyn FnOnce()>>,
    scoped: Option<Scoped>,
}

impl Bencher {
    /// The display string of parameter `name` for this case (panics if there is no such axis).
    pub fn param(&self, name: &str) -> &str {
        match self.params.iter().find(|(k, _)| k == name) {
            Some((_, v)) => v,
            None => panic!("perflab: this benchmark has no parameter '{}'", name),
        }
    }
    /// The parameter parsed as `T` (`let n: usize = b.param_as("n");`).
    pub fn param_as<T: std::str::FromStr>(&self, name: &str) -> T
    where
        T::Err: std::fmt::Debug,
    {
        let v = self.param(name);
        v.parse().unwrap_or_else(|e| panic!("perflab: parameter '{}' = {:?}: {:?}", name, v, e))
    }
    /// The routine to time. Each call's result goes through `black_box`; give it inputs through
    /// `black_box` too if they are constants, so the optimiser cannot fold the work away.
    pub fn iter<T: 'static, F: FnMut() -> T + 'static>(&mut self, f: F) {
        self.routine = Some(Box::new(Iter { f, _t: PhantomData }));
    }
    /// A routine that consumes an input: before every timed iteration, `setup` makes one input per
    /// invocation (outside the timed region); the timed loop then calls `f(input)` for each.
    /// Mark the benchmark `.iteration_setup()` to get one invocation per iteration.
    pub fn iter_batched<I: 'static, T: 'static, S: FnMut() -> I + 'static, F: FnMut(I) -> T + 'static>(
        &mut self,
        setup: S,
        f: F,
    ) {
        self.routine = Some(Box::new(Batched { setup, f, inputs: Vec::new(), batches: Batches::Whole, _t: PhantomData }));
    }
    /// Runs at teardown of the case (after the routine's state is dropped).
    pub fn teardown<F: FnOnce() + 'static>(&mut self, f: F) {
        self.teardown = Some(Box::new(f));
    }

    /// A rate column for this case (criterion's `Throughput`): `per_op` of `unit` per operation, shown
    /// per second against the measured mean, with binary (1024) or decimal (1000) prefixes.
    #[doc(hidden)]
    pub fn __rate(&mut self, name: &str, per_op: f64, unit: &str, base: u32) {
        let entry = obj(vec![
            ("per_op", Json::Float(per_op)),
            ("unit", s(unit)),
            ("base", Json::Int(base as i64)),
            ("invert", Json::Bool(false)),
        ]);
        let mut rates = RATES.lock().unwrap_or_else(|e| e.into_inner());
        rates.retain(|(n, _)| n != name);
        rates.push((name.to_string(), entry));
    }

    /// The parameter values of this case (a compatibility layer finds its call by them).
    #[doc(hidden)]
    pub fn __params(&self) -> &[(String, String)] {
        &self.params
    }

    /// Scoped benchmarks (see `Registry::__scoped`): time `f` like `iter`, serving the host's `run`
    /// requests from inside this call; returns when the case is torn down.
    #[doc(hidden)]
    pub fn __serve_iter<T, F: FnMut() -> T>(&mut self, f: F) {
        self.serve(&mut Iter { f, _t: PhantomData });
    }
    /// Like `__serve_iter` for a routine consuming an input made by `setup` outside timing.
    #[doc(hidden)]
    pub fn __serve_batched<I, T, S: FnMut() -> I, F: FnMut(I) -> T>(&mut self, setup: S, f: F, batches: Batches) {
        self.serve(&mut Batched { setup, f, inputs: Vec::new(), batches, _t: PhantomData });
    }
    /// A routine given `&mut` its input; inputs and outputs are dropped outside timing.
    #[doc(hidden)]
    pub fn __serve_batched_ref<I, T, S: FnMut() -> I, F: FnMut(&mut I) -> T>(
        &mut self,
        setup: S,
        f: F,
        batches: Batches,
    ) {
        self.serve(&mut BatchedRef { setup, f, inputs: Vec::new(), outputs: Vec::new(), batches });
    }
    /// A routine whose outputs are dropped outside timing.
    #[doc(hidden)]
    pub fn __serve_large_drop<T, F: FnMut() -> T>(&mut self, f: F) {
        self.serve(&mut LargeDrop { f, outputs: Vec::new() });
    }
    /// The routine times itself: `f(n)` runs n operations and returns the nanoseconds they took.
    #[doc(hidden)]
    pub fn __serve_custom<F: FnMut(u64) -> u64>(&mut self, f: F) {
        self.serve(&mut Custom { f });
    }

    fn serve(&mut self, routine: &mut dyn Routine) {
        let Some(sc) = self.scoped.as_mut() else {
            panic!("perflab: __serve_* is for benchmarks registered with Registry::__scoped");
        };
        if sc.served {
            return; // the routine of this case was already measured (a second b.iter in one closure)
        }
        sc.served = true;
        // SAFETY: `conn` points at the worker's connection, which outlives the setup call this runs
        // in and is not touched by the worker until that call returns.
        let conn = unsafe { &mut *sc.conn };
        if conn.reply(&sc.setup_id, "ready", vec![]).is_err() {
            return;
        }
        loop {
            let Some(line) = conn.read_request() else { return };
            match json::parse(&line) {
                Ok(msg) if msg.get("type").and_then(Json::as_str) == Some("run")
                    && msg.get("v") == Some(&Json::Int(PROTOCOL_VERSION)) =>
                {
                    let id = msg.get("id").cloned().unwrap_or(Json::Null);
                    if run_request(conn, &id, &msg, routine).is_err() {
                        return;
                    }
                }
                _ => {
                    sc.stash = Some(line);
                    return;
                }
            }
        }
    }
}

/// CPU time of the calling thread: the C library's clock_gettime(CLOCK_THREAD_CPUTIME_ID) (the
/// standard library links libc anyway, so no crate is needed). None where there is no such clock.
#[cfg(target_os = "linux")]
mod thread_cpu {
    use std::os::raw::{c_int, c_long};

    #[repr(C)]
    struct Timespec {
        tv_sec: c_long,
        tv_nsec: c_long,
    }
    extern "C" {
        fn clock_gettime(clk: c_int, ts: *mut Timespec) -> c_int;
    }
    const CLOCK_THREAD_CPUTIME_ID: c_int = 3;
    pub const SOURCE: Option<&str> = Some("clock_gettime(CLOCK_THREAD_CPUTIME_ID)");

    #[inline(always)]
    pub fn now_ns() -> u64 {
        let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
        // SAFETY: clock_gettime writes one timespec (layout above: two C longs on Linux) into `ts`.
        if unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
            return 0;
        }
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }
}
#[cfg(not(target_os = "linux"))]
mod thread_cpu {
    pub const SOURCE: Option<&str> = None;
    #[inline(always)]
    pub fn now_ns() -> u64 {
        0
    }
}

/// One iteration: wall ns, and the CPU ns the measuring thread got meanwhile.
#[derive(Clone, Copy)]
struct Timing {
    ns: u64,
    cpu: u64,
}

/// Times `body` (the loop itself): the CPU clock is read just outside the two wall-clock reads, so
/// the timed region is what it was without it.
#[inline(always)]
fn timed<B: FnOnce()>(body: B) -> Timing {
    let c0 = thread_cpu::now_ns();
    let t0 = Instant::now();
    body();
    let ns = t0.elapsed().as_nanos() as u64;
    let cpu = thread_cpu::now_ns().saturating_sub(c0);
    Timing { ns, cpu }
}

trait Routine {
    /// `n` calls of the routine (or of the empty routine of the same shape), timed.
    fn time(&mut self, n: u64, overhead: bool) -> Timing;
    /// Address of the non-inlined function that runs one call (for the code-size lookup).
    fn code_addr(&self) -> usize;
}

struct Iter<T, F> {
    f: F,
    _t: PhantomData<fn() -> T>,
}

/// One call of the benchmark routine: never inlined, so the timed loop has the same shape for the
/// workload and the overhead stage, and the routine's machine code has a symbol of its own.
#[inline(never)]
fn perflab_bench_call<T, F: FnMut() -> T>(f: &mut F) -> T {
    f()
}

/// The overhead stage's empty routine: same signature and return type, does nothing.
#[inline(never)]
fn perflab_empty_call<T, F: FnMut() -> T>(_f: &mut F) -> MaybeUninit<T> {
    MaybeUninit::uninit()
}

impl<T, F: FnMut() -> T> Routine for Iter<T, F> {
    fn time(&mut self, n: u64, overhead: bool) -> Timing {
        let f = &mut self.f;
        if overhead {
            timed(|| {
                for _ in 0..n {
                    black_box(perflab_empty_call::<T, F>(black_box(&mut *f)));
                }
            })
        } else {
            timed(|| {
                for _ in 0..n {
                    black_box(perflab_bench_call::<T, F>(black_box(&mut *f)));
                }
            })
        }
    }
    fn code_addr(&self) -> usize {
        perflab_bench_call::<T, F> as fn(&mut F) -> T as usize
    }
}

struct Batched<I, T, S, F> {
    setup: S,
    f: F,
    inputs: Vec<I>,
    batches: Batches,
    _t: PhantomData<fn() -> T>,
}

#[inline(never)]
fn perflab_bench_call_with<I, T, F: FnMut(I) -> T>(f: &mut F, input: I) -> T {
    f(input)
}

#[inline(never)]
fn perflab_empty_call_with<I, T, F: FnMut(I) -> T>(_f: &mut F, input: I) -> MaybeUninit<T> {
    drop(input);
    MaybeUninit::uninit()
}

impl<I, T, S: FnMut() -> I, F: FnMut(I) -> T> Routine for Batched<I, T, S, F> {
    fn time(&mut self, n: u64, overhead: bool) -> Timing {
        let per = self.batches.per_batch(n);
        let mut total = Timing { ns: 0, cpu: 0 };
        let mut left = n;
        while left > 0 {
            let k = per.min(left);
            let t = self.time_batch(k, overhead);
            total.ns += t.ns;
            total.cpu += t.cpu;
            left -= k;
        }
        total
    }
    fn code_addr(&self) -> usize {
        perflab_bench_call_with::<I, T, F> as fn(&mut F, I) -> T as usize
    }
}

impl<I, T, S: FnMut() -> I, F: FnMut(I) -> T> Batched<I, T, S, F> {
    fn time_batch(&mut self, n: u64, overhead: bool) -> Timing {
        self.inputs.clear();
        // inputs are prepared outside the timed region and outside allocation counting
        let counting = COUNTING.swap(false, Ordering::SeqCst);
        self.inputs.reserve(n as usize);
        for _ in 0..n {
            self.inputs.push((self.setup)());
        }
        COUNTING.store(counting, Ordering::SeqCst);
        let f = &mut self.f;
        let mut inputs = std::mem::take(&mut self.inputs);
        let elapsed = if overhead {
            timed(|| {
                for x in inputs.drain(..) {
                    black_box(perflab_empty_call_with::<I, T, F>(black_box(&mut *f), x));
                }
            })
        } else {
            timed(|| {
                for x in inputs.drain(..) {
                    black_box(perflab_bench_call_with::<I, T, F>(black_box(&mut *f), x));
                }
            })
        };
        self.inputs = inputs;
        elapsed
    }
}

/// Prepares inputs like `Batched` and gives the routine `&mut` each; the inputs and the outputs are
/// dropped after the timed region (criterion's `iter_batched_ref`).
struct BatchedRef<I, T, S, F> {
    setup: S,
    f: F,
    inputs: Vec<I>,
    outputs: Vec<T>,
    batches: Batches,
}

#[inline(never)]
fn perflab_bench_call_ref<I, T, F: FnMut(&mut I) -> T>(f: &mut F, input: &mut I) -> T {
    f(input)
}

#[inline(never)]
fn perflab_empty_call_ref<I, T, F: FnMut(&mut I) -> T>(_f: &mut F, _input: &mut I) -> MaybeUninit<T> {
    MaybeUninit::uninit()
}

impl<I, T, S: FnMut() -> I, F: FnMut(&mut I) -> T> Routine for BatchedRef<I, T, S, F> {
    fn time(&mut self, n: u64, overhead: bool) -> Timing {
        let per = self.batches.per_batch(n);
        let mut total = Timing { ns: 0, cpu: 0 };
        let mut left = n;
        while left > 0 {
            let k = per.min(left);
            let counting = COUNTING.swap(false, Ordering::SeqCst);
            self.inputs.clear();
            self.outputs.clear();
            self.inputs.reserve(k as usize);
            self.outputs.reserve(k as usize);
            for _ in 0..k {
                self.inputs.push((self.setup)());
            }
            COUNTING.store(counting, Ordering::SeqCst);
            let (f, inputs, outputs) = (&mut self.f, &mut self.inputs, &mut self.outputs);
            let t = if overhead {
                timed(|| {
                    for x in inputs.iter_mut() {
                        black_box(perflab_empty_call_ref::<I, T, F>(black_box(&mut *f), x));
                    }
                })
            } else {
                timed(|| {
                    for x in inputs.iter_mut() {
                        outputs.push(perflab_bench_call_ref::<I, T, F>(black_box(&mut *f), x));
                    }
                })
            };
            let counting = COUNTING.swap(false, Ordering::SeqCst);
            self.inputs.clear();
            self.outputs.clear();
            COUNTING.store(counting, Ordering::SeqCst);
            total.ns += t.ns;
            total.cpu += t.cpu;
            left -= k;
        }
        total
    }
    fn code_addr(&self) -> usize {
        perflab_bench_call_ref::<I, T, F> as fn(&mut F, &mut I) -> T as usize
    }
}

/// The routine's outputs are kept until after the timed region (criterion's `iter_with_large_drop`).
struct LargeDrop<T, F> {
    f: F,
    outputs: Vec<T>,
}

impl<T, F: FnMut() -> T> Routine for LargeDrop<T, F> {
    fn time(&mut self, n: u64, overhead: bool) -> Timing {
        let counting = COUNTING.swap(false, Ordering::SeqCst);
        self.outputs.clear();
        self.outputs.reserve(n as usize);
        COUNTING.store(counting, Ordering::SeqCst);
        let (f, outputs) = (&mut self.f, &mut self.outputs);
        let t = if overhead {
            timed(|| {
                for _ in 0..n {
                    black_box(perflab_empty_call::<T, F>(black_box(&mut *f)));
                }
            })
        } else {
            timed(|| {
                for _ in 0..n {
                    outputs.push(perflab_bench_call::<T, F>(black_box(&mut *f)));
                }
            })
        };
        let counting = COUNTING.swap(false, Ordering::SeqCst);
        self.outputs.clear();
        COUNTING.store(counting, Ordering::SeqCst);
        t
    }
    fn code_addr(&self) -> usize {
        perflab_bench_call::<T, F> as fn(&mut F) -> T as usize
    }
}

/// A routine that times itself (criterion's `iter_custom`): the wall time is what it returns; the
/// empty routine of the overhead stage takes none. The CPU time is read around the call.
struct Custom<F> {
    f: F,
}

#[inline(never)]
fn perflab_bench_call_custom<F: FnMut(u64) -> u64>(f: &mut F, n: u64) -> u64 {
    f(n)
}

impl<F: FnMut(u64) -> u64> Routine for Custom<F> {
    fn time(&mut self, n: u64, overhead: bool) -> Timing {
        if overhead {
            return Timing { ns: 0, cpu: 0 };
        }
        // the call also runs what the routine leaves out of its own timing (its setup): the CPU
        // reading is the share of the call the thread ran for, applied to the time it reports
        let c0 = thread_cpu::now_ns();
        let t0 = Instant::now();
        let ns = perflab_bench_call_custom::<F>(&mut self.f, n);
        let wall = t0.elapsed().as_nanos() as u64;
        let cpu = thread_cpu::now_ns().saturating_sub(c0);
        let share = if wall == 0 { 1.0 } else { (cpu as f64 / wall as f64).min(1.0) };
        Timing { ns, cpu: (ns as f64 * share) as u64 }
    }
    fn code_addr(&self) -> usize {
        perflab_bench_call_custom::<F> as fn(&mut F, u64) -> u64 as usize
    }
}

/// Generates `fn main()` for a benchmark binary: `perflab::main!(fixture::register);`
#[macro_export]
macro_rules! main {
    ($($reg:path),* $(,)?) => {
        fn main() {
            let mut registry = $crate::Registry::new();
            $( $reg(&mut registry); )*
            ::std::process::exit($crate::run(registry));
        }
    };
}

// ------------------------------------------------------------------------------------------------
// Panics
// ------------------------------------------------------------------------------------------------

struct PanicInfo {
    message: String,
    file: String,
    line: u32,
    backtrace: String,
}

static LAST_PANIC: Mutex<Option<PanicInfo>> = Mutex::new(None);

fn payload_text(p: &(dyn Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "Box<dyn Any>".to_string()
    }
}

fn install_panic_hook() {
    panic::set_hook(Box::new(|info| {
        let message = payload_text(info.payload());
        let (file, line) = info.location().map(|l| (l.file().to_string(), l.line())).unwrap_or_default();
        let backtrace = std::backtrace::Backtrace::force_capture().to_string();
        eprintln!("perflab: benchmark panicked at {}:{}: {}", file, line, message);
        if let Ok(mut slot) = LAST_PANIC.lock() {
            *slot = Some(PanicInfo { message, file, line, backtrace });
        }
    }));
}

/// Run `f`, turning a panic into the error object of an `exception` reply.
fn guarded<R>(what: &str, f: impl FnOnce() -> R) -> Result<R, Json> {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => Ok(r),
        Err(payload) => {
            let info = LAST_PANIC.lock().ok().and_then(|mut s| s.take());
            let (msg, file, line, bt) = match info {
                Some(i) => (i.message, i.file, i.line, i.backtrace),
                None => (payload_text(&*payload), String::new(), 0, String::new()),
            };
            let mut message = format!("panicked: {}", msg);
            if !what.is_empty() {
                message = format!("{} {}", what, message);
            }
            let mut fields = vec![("kind", s("exception")), ("message", s(message)), ("traceback", s(bt))];
            if !file.is_empty() {
                fields.push(("file", s(absolute(&file))));
                fields.push(("line", Json::Int(line as i64)));
            }
            Err(obj(fields))
        }
    }
}

fn absolute(file: &str) -> String {
    let p = Path::new(file);
    if p.is_absolute() {
        file.to_string()
    } else {
        std::env::current_dir().map(|d| d.join(p).to_string_lossy().into_owned()).unwrap_or_else(|_| file.to_string())
    }
}

// ------------------------------------------------------------------------------------------------
// Code size: the symbol table of our own executable, read with `nm` (diagnose stage only)
// ------------------------------------------------------------------------------------------------

#[no_mangle]
#[inline(never)]
pub extern "C" fn perflab_rust_anchor() -> u64 {
    black_box(7)
}

/// `perflab run --measure instructions` runs the worker under valgrind's callgrind with
/// PERFLAB_COUNT=1: the timed loop of each `run` request then runs inside ONE call of this marker;
/// callgrind counts only inside it (--toggle-collect) and dumps as it returns (--dump-after). It must
/// stay a real function under its own name: no_mangle (external, so never cloned or specialised),
/// inline(never), reached through an opaque pointer, and the black_box after the call keeps the call
/// from becoming a tail jump (that would leave the marker before the loop runs). The Rust ABI, not
/// "C": a benchmark's panic unwinds through it to the worker's catch_unwind.
#[no_mangle]
#[inline(never)]
pub fn perflab_measured_region(body: &mut dyn FnMut()) {
    body();
    black_box(());
}

fn count_mode() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("PERFLAB_COUNT").as_deref() == Ok("1"))
}

struct SymTable {
    bias: usize,
    sizes: Vec<(usize, u64)>, // (address in the file, size), sorted
    exe: String,
}

static SYMTAB: OnceLock<Option<SymTable>> = OnceLock::new();

fn symtab() -> Option<&'static SymTable> {
    SYMTAB
        .get_or_init(|| {
            let exe = std::env::current_exe().ok()?;
            let nm = std::env::var("PERFLAB_NM").unwrap_or_else(|_| "nm".to_string());
            let out = std::process::Command::new(nm).arg("-S").arg("--defined-only").arg(&exe).output().ok()?;
            if !out.status.success() {
                return None;
            }
            let text = String::from_utf8_lossy(&out.stdout);
            let mut anchor = None;
            let mut sizes = Vec::new();
            for line in text.lines() {
                let parts: Vec<&str> = line.split_whitespace().collect();
                if parts.len() == 4 {
                    let (Ok(addr), Ok(size)) = (usize::from_str_radix(parts[0], 16), u64::from_str_radix(parts[1], 16))
                    else {
                        continue;
                    };
                    if parts[3] == "perflab_rust_anchor" {
                        anchor = Some(addr);
                    }
                    if matches!(parts[2], "t" | "T" | "W" | "w") {
                        sizes.push((addr, size));
                    }
                }
            }
            sizes.sort_unstable();
            let bias = (perflab_rust_anchor as extern "C" fn() -> u64 as usize).wrapping_sub(anchor?);
            Some(SymTable { bias, sizes, exe: exe.to_string_lossy().into_owned() })
        })
        .as_ref()
}

/// Size of the function at `addr`, its address in the executable file, and the executable's path
/// (the host disassembles that range with `--disasm`).
fn code_location(addr: usize) -> Option<(u64, usize, &'static str)> {
    let t = symtab()?;
    let target = addr.wrapping_sub(t.bias);
    let i = t.sizes.binary_search_by(|(a, _)| a.cmp(&target)).ok()?;
    Some((t.sizes[i].1, target, t.exe.as_str()))
}

// ------------------------------------------------------------------------------------------------
// Protocol
// ------------------------------------------------------------------------------------------------

struct Case {
    routine: Option<Box<dyn Routine>>,
    teardown: Option<Box<dyn FnOnce()>>,
}

/// The connection to the host: requests come in line by line, replies go out.
struct Conn {
    out: TcpStream,
    reader: BufReader<TcpStream>,
}

impl Conn {
    fn send(&mut self, mut fields: Vec<(&str, Json)>) -> std::io::Result<()> {
        fields.insert(0, ("v", Json::Int(PROTOCOL_VERSION)));
        let mut line = json::to_string(&obj(fields));
        line.push('\n');
        self.out.write_all(line.as_bytes())
    }

    fn reply(&mut self, id: &Json, kind: &str, mut fields: Vec<(&str, Json)>) -> std::io::Result<()> {
        fields.insert(0, ("type", s(kind)));
        fields.insert(0, ("id", id.clone()));
        self.send(fields)
    }

    fn error(&mut self, id: &Json, error: Json) -> std::io::Result<()> {
        self.reply(id, "error", vec![("error", error)])
    }

    /// The next non-blank request line; None when the host went away.
    fn read_request(&mut self) -> Option<String> {
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match self.reader.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => return None,
                Ok(_) => {}
            }
            let line = String::from_utf8_lossy(&buf);
            let line = line.trim_end_matches(['\n', '\r']);
            if !line.trim().is_empty() {
                return Some(line.to_string());
            }
        }
    }
}

struct Worker {
    registry: Registry,
    conn: Conn,
    case: Option<Case>,
}

fn group_of(def: &Def) -> String {
    def.group.clone().unwrap_or_else(|| {
        Path::new(&def.file).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default()
    })
}

fn bench_id(def: &Def) -> String {
    format!("{}.{}", group_of(def), def.name)
}

/// The smallest step the thread CPU clock takes (1 ns on Linux).
fn cpu_clock_resolution_ns() -> i64 {
    let mut best = u64::MAX;
    for _ in 0..20 {
        let a = thread_cpu::now_ns();
        let mut b = thread_cpu::now_ns();
        while b == a {
            b = thread_cpu::now_ns();
        }
        best = best.min(b - a);
    }
    best.clamp(1, 1_000_000_000) as i64
}

fn clock_resolution_ns() -> i64 {
    let mut best = u128::MAX;
    for _ in 0..2000 {
        let a = Instant::now();
        let mut b = Instant::now();
        while b == a {
            b = Instant::now();
        }
        best = best.min((b - a).as_nanos());
    }
    best.clamp(1, 1_000_000_000) as i64
}

/// An error reply's payload.
fn err(kind: &str, message: impl Into<String>) -> Json {
    obj(vec![("kind", s(kind)), ("message", s(message.into()))])
}

enum Flow {
    Continue,
    Exit,
}

impl Worker {
    fn send(&mut self, fields: Vec<(&str, Json)>) -> std::io::Result<()> {
        self.conn.send(fields)
    }

    fn reply(&mut self, id: &Json, kind: &str, fields: Vec<(&str, Json)>) -> std::io::Result<()> {
        self.conn.reply(id, kind, fields)
    }

    fn error(&mut self, id: &Json, error: Json) -> std::io::Result<()> {
        self.conn.error(id, error)
    }

    fn hello(&mut self) -> std::io::Result<()> {
        let exe = std::env::current_exe().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        let mut caps = Vec::new();
        if cfg!(feature = "count-allocs") {
            caps.push(s("alloc"));
            caps.push(s("allocs"));
        }
        caps.push(s("codesize"));
        caps.push(s("with_overhead"));
        caps.push(s("overhead_first"));
        let version = option_env!("PERFLAB_RUSTC_VERSION").unwrap_or("unknown").to_string();
        let token = std::env::var("PERFLAB_TOKEN").unwrap_or_default();
        self.send(vec![
            ("type", s("hello")),
            ("token", s(token)),
            ("language", s("rust")),
            ("runtime", obj(vec![("name", s("rustc")), ("version", s(version)), ("executable", s(exe))])),
            (
                "clock",
                obj(vec![
                    ("resolution_ns", Json::Int(clock_resolution_ns())),
                    ("source", s("std::time::Instant (CLOCK_MONOTONIC)")),
                ]),
            ),
            (
                "cpu_clock",
                match thread_cpu::SOURCE {
                    Some(source) => obj(vec![
                        ("source", s(source)),
                        ("scope", s("thread")),
                        ("resolution_ns", Json::Int(cpu_clock_resolution_ns())),
                    ]),
                    None => Json::Null,
                },
            ),
            ("capabilities", Json::Arr(caps)),
            ("unroll", Json::Int(1)),
            ("pid", Json::Int(std::process::id() as i64)),
        ])
    }

    fn handle(&mut self, line: &str) -> std::io::Result<Flow> {
        let msg = match json::parse(line) {
            Ok(m @ Json::Obj(_)) => m,
            Ok(_) => {
                self.error(&Json::Null, err("protocol", "malformed request: not a JSON object"))?;
                return Ok(Flow::Continue);
            }
            Err(e) => {
                self.error(&Json::Null, err("protocol", format!("malformed request: {}", e)))?;
                return Ok(Flow::Continue);
            }
        };
        let id = msg.get("id").cloned().unwrap_or(Json::Null);
        if msg.get("v") != Some(&Json::Int(PROTOCOL_VERSION)) {
            let got = msg.get("v").map(json::to_string).unwrap_or_else(|| "none".into());
            self.error(&id, err("version", format!("this worker speaks protocol v{}, got v{}", PROTOCOL_VERSION, got)))?;
            return Ok(Flow::Exit);
        }
        let kind = msg.get("type").and_then(Json::as_str).unwrap_or("").to_string();
        match kind.as_str() {
            "load" => self.on_load(&id, &msg)?,
            "setup" => return self.on_setup(&id, &msg),
            "run" => self.on_run(&id, &msg)?,
            "teardown" => self.on_teardown(&id)?,
            "bye" => {
                self.reply(&id, "done", vec![])?;
                return Ok(Flow::Exit);
            }
            other => self.error(&id, err("protocol", format!("unknown request type {:?}", other)))?,
        }
        Ok(Flow::Continue)
    }

    fn selected(&self, paths: &[String]) -> Vec<usize> {
        let wanted: Vec<std::path::PathBuf> =
            paths.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.into())).collect();
        (0..self.registry.defs.len())
            .filter(|&i| {
                if wanted.is_empty() {
                    return true;
                }
                let d = &self.registry.defs[i];
                let f = Path::new(d.origin.as_deref().unwrap_or(&d.file));
                let f = std::fs::canonicalize(f).unwrap_or_else(|_| f.to_path_buf());
                wanted.iter().any(|w| f == *w || f.starts_with(w))
            })
            .collect()
    }

    fn on_load(&mut self, id: &Json, msg: &Json) -> std::io::Result<()> {
        let paths = match msg.get("paths") {
            Some(Json::Arr(a)) => a.iter().filter_map(|p| p.as_str().map(String::from)).collect::<Vec<_>>(),
            _ => return self.error(id, err("protocol", "request 'load' lacks field 'paths'")),
        };
        let mut benches = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut errors = Vec::new();
        for i in self.selected(&paths) {
            let d = &self.registry.defs[i];
            let bid = bench_id(d);
            if !seen.insert(bid.clone()) {
                errors.push(obj(vec![
                    ("file", s(absolute(&d.file))),
                    ("line", Json::Int(d.line as i64)),
                    ("kind", s("load")),
                    ("message", s(format!("{}: registered twice", bid))),
                ]));
                continue;
            }
            if let Some((axis, _)) = d.params.iter().find(|(_, v)| v.is_empty()) {
                errors.push(obj(vec![
                    ("file", s(absolute(&d.file))),
                    ("line", Json::Int(d.line as i64)),
                    ("kind", s("load")),
                    ("message", s(format!("{}: parameter '{}' has an empty list of values", bid, axis))),
                ]));
                continue;
            }
            if let Some(why) = &d.unsupported {
                errors.push(obj(vec![
                    ("file", s(absolute(&d.file))),
                    ("line", Json::Int(d.line as i64)),
                    ("kind", s("load")),
                    ("message", s(why.clone())),
                    (
                        "benchmark",
                        obj(vec![("id", s(bid)), ("name", s(d.name.clone())), ("group", s(group_of(d)))]),
                    ),
                ]));
                continue;
            }
            let params = d
                .params
                .iter()
                .map(|(n, vals)| obj(vec![("name", s(n.clone())), ("values", Json::Arr(vals.iter().map(|v| s(v.clone())).collect()))]))
                .collect();
            benches.push(obj(vec![
                ("id", s(bid)),
                ("name", s(d.name.clone())),
                ("group", s(group_of(d))),
                ("file", s(absolute(&d.file))),
                ("line", Json::Int(d.line as i64)),
                ("baseline", Json::Bool(d.baseline)),
                ("categories", Json::Arr(d.categories.iter().map(|c| s(c.clone())).collect())),
                ("ops_per_invoke", Json::Int(d.ops as i64)),
                ("params", Json::Arr(params)),
                ("description", s(d.description.clone())),
                ("iteration_setup", Json::Bool(d.iteration_setup)),
                ("meta", Json::Obj(d.meta.clone())),
            ]));
        }
        errors.extend(build_errors(&paths));
        self.reply(id, "loaded", vec![("benchmarks", Json::Arr(benches)), ("errors", Json::Arr(errors))])
    }

    fn on_setup(&mut self, id: &Json, msg: &Json) -> std::io::Result<Flow> {
        let Some(bid) = msg.get("benchmark").and_then(Json::as_str) else {
            return self.error(id, err("protocol", "request 'setup' lacks field 'benchmark'")).map(|_| Flow::Continue);
        };
        let Some(di) = self.registry.defs.iter().position(|d| bench_id(d) == bid) else {
            return self.error(id, err("not_found", format!("no benchmark with id {:?}", bid))).map(|_| Flow::Continue);
        };
        let empty = Json::Obj(vec![]);
        let indices = match msg.get("params") {
            None | Some(Json::Null) => &empty,
            Some(p @ Json::Obj(_)) => p,
            Some(_) => return self.error(id, err("protocol", "setup.params must be an object")).map(|_| Flow::Continue),
        };
        let def = &self.registry.defs[di];
        let mut params = Vec::new();
        for (axis, values) in &def.params {
            match indices.get(axis).and_then(Json::as_i64) {
                Some(i) if i >= 0 && (i as usize) < values.len() => params.push((axis.clone(), values[i as usize].clone())),
                Some(i) => {
                    let m = format!("{}: parameter '{}' has no value #{}", bid, axis, i);
                    return self.error(id, err("not_found", m)).map(|_| Flow::Continue);
                }
                None => {
                    let m = format!("{}: missing index for parameter '{}'", bid, axis);
                    return self.error(id, err("not_found", m)).map(|_| Flow::Continue);
                }
            }
        }
        // a previous case that was never torn down is dropped first
        self.drop_case();
        RATES.lock().unwrap_or_else(|e| e.into_inner()).clear();
        if self.registry.defs[di].scoped {
            return self.setup_scoped(id, di, bid, params);
        }
        let mut b = Bencher { params, routine: None, teardown: None, scoped: None };
        let setup = &self.registry.defs[di].setup;
        match guarded("setup", || setup(&mut b)) {
            Err(e) => self.error(id, e)?,
            Ok(()) => {
                if b.routine.is_none() {
                    let m = format!("{}: setup did not call b.iter(...) with a routine to time", bid);
                    self.error(id, err("exception", m))?;
                    return Ok(Flow::Continue);
                }
                self.case = Some(Case { routine: b.routine, teardown: b.teardown });
                self.reply(id, "ready", vec![])?
            }
        }
        Ok(Flow::Continue)
    }

    /// A scoped benchmark's case lives inside its own code: its setup runs until it hands over the
    /// routine (`Bencher::__serve_*`), which replies `ready` and serves `run`s until another request
    /// comes; that request is answered here, after the benchmark's code has returned (its drops are
    /// its teardown).
    fn setup_scoped(&mut self, id: &Json, di: usize, bid: &str, params: Vec<(String, String)>) -> std::io::Result<Flow> {
        let conn: *mut Conn = &mut self.conn;
        let scoped = Scoped { conn, setup_id: id.clone(), served: false, stash: None };
        let mut b = Bencher { params, routine: None, teardown: None, scoped: Some(scoped) };
        let setup = &self.registry.defs[di].setup;
        let result = guarded("setup", || setup(&mut b));
        let Scoped { served, stash, .. } = b.scoped.take().unwrap();
        if !served {
            match result {
                Err(e) => self.error(id, e)?,
                Ok(()) => {
                    let m = format!("{}: the benchmark's closure did not call b.iter(...) (or another iter_*)", bid);
                    self.error(id, err("exception", m))?
                }
            }
            return Ok(Flow::Continue);
        }
        let Some(line) = stash else { return Ok(Flow::Exit) }; // the host went away
        let next = json::parse(&line).unwrap_or(Json::Null);
        if next.get("type").and_then(Json::as_str) == Some("teardown") {
            let tid = next.get("id").cloned().unwrap_or(Json::Null);
            match result {
                Err(e) => self.error(&tid, e)?,
                Ok(()) => self.reply(&tid, "done", vec![])?,
            }
            return Ok(Flow::Continue);
        }
        self.handle(&line)
    }

    fn drop_case(&mut self) -> Option<Json> {
        let case = self.case.take()?;
        let Case { routine, teardown, .. } = case;
        guarded("teardown", move || {
            drop(routine);
            if let Some(t) = teardown {
                t();
            }
        })
        .err()
    }

    fn on_run(&mut self, id: &Json, msg: &Json) -> std::io::Result<()> {
        let Some(case) = self.case.as_mut() else {
            return self.conn.error(id, err("state", "run before setup"));
        };
        let routine = case.routine.as_mut().unwrap();
        run_request(&mut self.conn, id, msg, &mut **routine)
    }

    fn on_teardown(&mut self, id: &Json) -> std::io::Result<()> {
        match self.drop_case() {
            Some(e) => self.error(id, e),
            None => self.reply(id, "done", vec![]),
        }
    }
}

/// Files the host could not compile (it built the others without them): the `loaded.errors` it
/// wrote to the JSON file named by PERFLAB_RUST_LOAD_ERRORS, for the files `paths` select.
fn build_errors(paths: &[String]) -> Vec<Json> {
    let Ok(file) = std::env::var("PERFLAB_RUST_LOAD_ERRORS") else { return Vec::new() };
    let Ok(text) = std::fs::read_to_string(&file) else { return Vec::new() };
    let Ok(Json::Arr(all)) = json::parse(&text) else { return Vec::new() };
    let wanted: Vec<std::path::PathBuf> =
        paths.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.into())).collect();
    all.into_iter()
        .filter(|e| {
            let Some(f) = e.get("file").and_then(Json::as_str) else { return false };
            let f = std::fs::canonicalize(f).unwrap_or_else(|_| f.into());
            wanted.is_empty() || wanted.iter().any(|w| f == *w || f.starts_with(w))
        })
        .collect()
}

/// Answer one `run` request with `routine`'s timings (or its diagnostics).
fn run_request(conn: &mut Conn, id: &Json, msg: &Json, routine: &mut dyn Routine) -> std::io::Result<()> {
        let Some(stage) = msg.get("stage").and_then(Json::as_str).map(String::from) else {
            return conn.error(id, err("protocol", "request 'run' lacks field 'stage' (a string)"));
        };
        let (Some(inv), Some(iters)) = (msg.get("invocations").and_then(Json::as_i64), msg.get("iterations").and_then(Json::as_i64))
        else {
            return conn.error(id, err("protocol", "request 'run' needs integer 'invocations' and 'iterations'"));
        };
        if inv < 1 || iters < 1 {
            return conn.error(id, err("protocol", "invocations and iterations must be >= 1"));
        }
        if !matches!(stage.as_str(), "pilot" | "warmup" | "overhead" | "workload" | "diagnose") {
            return conn.error(id, err("protocol", format!("unknown stage {:?}", stage)));
        }
        // each workload iteration followed by one overhead iteration, in the same request
        let with_overhead = msg.get("with_overhead") == Some(&Json::Bool(true));
        // or preceded by it: the second of a request is the one a loaded machine preempts, and the
        // host puts each side second alike
        let overhead_first = with_overhead && msg.get("overhead_first") == Some(&Json::Bool(true));
        if with_overhead && stage != "workload" {
            return conn.error(id, err("protocol", "with_overhead is for the workload stage only"));
        }
        let (n, k) = (inv as u64, iters as usize);
        if stage == "diagnose" {
            ALLOC_BYTES.store(0, Ordering::SeqCst);
            ALLOCS.store(0, Ordering::SeqCst);
            COUNTING.store(true, Ordering::SeqCst);
            let r = guarded("", || {
                for _ in 0..k {
                    routine.time(n, false);
                }
            });
            COUNTING.store(false, Ordering::SeqCst);
            if let Err(e) = r {
                return conn.error(id, e);
            }
            let counted = cfg!(feature = "count-allocs");
            let (bytes, allocs) = (ALLOC_BYTES.load(Ordering::SeqCst), ALLOCS.load(Ordering::SeqCst));
            let location = code_location(routine.code_addr());
            let size = location.map(|(size, _, _)| size);
            let mut notes = Vec::new();
            if size.is_some() {
                notes.push(s("code_size = bytes of the non-inlined perflab_bench_call::<routine> symbol (routine inlined into it)"));
            } else {
                notes.push(s("code size unavailable (nm missing or binary stripped)"));
            }
            let opt = |v: Option<u64>| v.map(|x| Json::Int(x as i64)).unwrap_or(Json::Null);
            let rates = RATES.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let mut fields = vec![
                    ("invocations", Json::Int(inv)),
                    ("iterations", Json::Int(iters)),
                    ("alloc_bytes", opt(counted.then_some(bytes))),
                    ("allocs", opt(counted.then_some(allocs))),
                    ("gc", Json::Null),
                    ("code_size", opt(size)),
                    ("code_address", location.map(|(_, a, _)| Json::Int(a as i64)).unwrap_or(Json::Null)),
                    ("binary", location.map(|(_, _, exe)| s(exe)).unwrap_or(Json::Null)),
                    ("notes", Json::Arr(notes)),
                ];
            if !rates.is_empty() {
                fields.push(("rates", Json::Obj(rates)));
            }
            return conn.reply(id, "diagnostics", fields);
        }
        let overhead = stage == "overhead";
        let r = guarded("", || {
            let mut work = Vec::with_capacity(k);
            let mut over = Vec::with_capacity(if with_overhead { k } else { 0 });
            let mut timed_loop = || {
                for _ in 0..k {
                    // exactly an `overhead` stage iteration: the same loop over the empty call
                    if overhead_first {
                        over.push(routine.time(n, true));
                    }
                    work.push(routine.time(n, overhead));
                    if with_overhead && !overhead_first {
                        over.push(routine.time(n, true));
                    }
                }
            };
            if count_mode() {
                // an opaque pointer: the optimiser cannot see which function it calls
                let marker: fn(&mut dyn FnMut()) = black_box(perflab_measured_region);
                marker(&mut timed_loop);
            } else {
                timed_loop();
            }
            (work, over)
        });
        let ints = |v: &[Timing], cpu: bool| {
            Json::Arr(v.iter().map(|t| Json::Int((if cpu { t.cpu } else { t.ns }) as i64)).collect())
        };
        let has_cpu = thread_cpu::SOURCE.is_some();
        match r {
            Err(e) => conn.error(id, e),
            Ok((work, over)) => {
                let mut fields =
                    vec![("stage", s(stage)), ("invocations", Json::Int(inv)), ("ns", ints(&work, false))];
                if has_cpu {
                    fields.push(("cpu_ns", ints(&work, true)));
                }
                if with_overhead {
                    fields.push(("overhead_ns", ints(&over, false)));
                    if has_cpu {
                        fields.push(("overhead_cpu_ns", ints(&over, true)));
                    }
                }
                conn.reply(id, "samples", fields)
            }
        }
    }


/// Serve protocol v2 on PERFLAB_CONNECT with the benchmarks of `registry`; returns the exit status.
pub fn run(registry: Registry) -> i32 {
    let Ok(addr) = std::env::var("PERFLAB_CONNECT") else {
        eprintln!("perflab worker: PERFLAB_CONNECT is not set; this program is started by `perflab run`, not by hand");
        eprintln!("({} benchmarks registered)", registry.defs.len());
        return 2;
    };
    let stream = match TcpStream::connect(&addr) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("perflab worker: cannot connect to {}: {}", addr, e);
            return 2;
        }
    };
    let _ = stream.set_nodelay(true);
    install_panic_hook();
    let out = match stream.try_clone() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("perflab worker: {}", e);
            return 2;
        }
    };
    let conn = Conn { out, reader: BufReader::new(stream) };
    let mut w = Worker { registry, conn, case: None };
    if w.hello().is_err() {
        return 2;
    }
    loop {
        let Some(line) = w.conn.read_request() else { return 0 }; // host went away
        match w.handle(&line) {
            Ok(Flow::Continue) => {}
            Ok(Flow::Exit) => return 0,
            Err(_) => return 0,
        }
    }
}
