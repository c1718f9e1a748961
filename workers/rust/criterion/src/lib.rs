//! criterion's API (0.4/0.5) on perflab's Rust worker: `benches/*.rs` written for criterion run as
//! they are. perflab builds them against this crate in place of criterion (a `[patch]` in the build
//! folder it owns; the user's Cargo.toml is never edited) and each `bench_function` / group member
//! becomes a perflab benchmark.
//!
//! How it works: `criterion_main!` defines the file's `register`. At load it runs the groups with a
//! listing `Criterion`, which records every benchmark (group, id, parameter, throughput, file:line)
//! without calling its closure. To measure one of them, the worker runs the groups again with a
//! targeting `Criterion`: every other benchmark is skipped, and the target's closure is called; its
//! `b.iter(...)` hands the routine — which may borrow the closure's setup — to the worker, which
//! serves the host's runs from inside that call. When the case is torn down, the groups' code
//! unwinds (its locals are dropped: criterion's teardown), and nothing else runs.
//!
//! Configuration (sample size, times, plots, baselines, profilers) is accepted and ignored: perflab's
//! job decides how long to measure. What cannot be honoured fails its benchmark alone, naming the
//! API and its file:line: custom measurements (`with_measurement`), `to_async`.

use std::cell::RefCell;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::rc::Rc;
use std::time::Duration;

#[doc(hidden)]
pub use perflab as __perflab;
pub use std::hint::black_box;

use measurement::{Measurement, WallTime};

/// Criterion's measurement API. Only `WallTime` is measured; a custom `Measurement` compiles, and
/// its benchmarks fail alone at load.
pub mod measurement {
    use super::Throughput;
    use std::time::{Duration, Instant};

    pub trait ValueFormatter {
        fn format_value(&self, value: f64) -> String {
            format!("{:.4}", value)
        }
        fn format_throughput(&self, _throughput: &Throughput, value: f64) -> String {
            format!("{:.4}", value)
        }
        fn scale_values(&self, typical_value: f64, values: &mut [f64]) -> &'static str;
        fn scale_throughputs(&self, typical_value: f64, throughput: &Throughput, values: &mut [f64]) -> &'static str;
        fn scale_for_machines(&self, values: &mut [f64]) -> &'static str;
    }

    pub trait Measurement {
        type Intermediate;
        type Value;
        fn start(&self) -> Self::Intermediate;
        fn end(&self, i: Self::Intermediate) -> Self::Value;
        fn add(&self, v1: &Self::Value, v2: &Self::Value) -> Self::Value;
        fn zero(&self) -> Self::Value;
        fn to_f64(&self, value: &Self::Value) -> f64;
        fn formatter(&self) -> &dyn ValueFormatter;
        /// perflab measures wall time only; a measurement of its own says false.
        #[doc(hidden)]
        fn __perflab_wall_time(&self) -> bool {
            false
        }
    }

    pub struct WallTime;

    struct DurationFormatter;

    impl ValueFormatter for DurationFormatter {
        fn scale_values(&self, _typical_value: f64, _values: &mut [f64]) -> &'static str {
            "ns"
        }
        fn scale_throughputs(&self, _t: f64, _throughput: &Throughput, _values: &mut [f64]) -> &'static str {
            "elem/s"
        }
        fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
            "ns"
        }
    }

    impl Measurement for WallTime {
        type Intermediate = Instant;
        type Value = Duration;
        fn start(&self) -> Instant {
            Instant::now()
        }
        fn end(&self, i: Instant) -> Duration {
            i.elapsed()
        }
        fn add(&self, v1: &Duration, v2: &Duration) -> Duration {
            *v1 + *v2
        }
        fn zero(&self) -> Duration {
            Duration::ZERO
        }
        fn to_f64(&self, value: &Duration) -> f64 {
            value.as_nanos() as f64
        }
        fn formatter(&self) -> &dyn ValueFormatter {
            &DurationFormatter
        }
        fn __perflab_wall_time(&self) -> bool {
            true
        }
    }
}

/// Profilers are accepted and not run (perflab has its own `--measure` modes).
pub mod profiler {
    use std::path::Path;
    pub trait Profiler {
        fn start_profiling(&mut self, benchmark_id: &str, benchmark_dir: &Path);
        fn stop_profiling(&mut self, benchmark_id: &str, benchmark_dir: &Path);
    }
}

/// Executors for `to_async`, which perflab does not support: the types exist so files compile, and
/// such a benchmark fails alone when it is measured.
pub mod async_executor {
    use std::future::Future;
    pub trait AsyncExecutor {
        fn block_on<T>(&self, future: impl Future<Output = T>) -> T;
    }
    pub struct FuturesExecutor;
    pub struct SmolExecutor;
    pub struct AsyncStdExecutor;
    impl AsyncExecutor for FuturesExecutor {
        fn block_on<T>(&self, _future: impl Future<Output = T>) -> T {
            unreachable!("perflab: async benchmarks are not supported")
        }
    }
    impl AsyncExecutor for SmolExecutor {
        fn block_on<T>(&self, _future: impl Future<Output = T>) -> T {
            unreachable!("perflab: async benchmarks are not supported")
        }
    }
    impl AsyncExecutor for AsyncStdExecutor {
        fn block_on<T>(&self, _future: impl Future<Output = T>) -> T {
            unreachable!("perflab: async benchmarks are not supported")
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Throughput {
    Bytes(u64),
    BytesDecimal(u64),
    Elements(u64),
}

impl Throughput {
    /// The `Throughput` column as criterion prints it: (unit, prefix base, amount per iteration).
    fn rate(&self) -> (&'static str, u32, u64) {
        match self {
            Throughput::Bytes(n) => ("B", 1024, *n),
            Throughput::BytesDecimal(n) => ("B", 1000, *n),
            Throughput::Elements(n) => ("elem", 1000, *n),
        }
    }

    fn describe(&self) -> (&'static str, u64) {
        match self {
            Throughput::Bytes(n) => ("bytes", *n),
            Throughput::BytesDecimal(n) => ("bytes", *n),
            Throughput::Elements(n) => ("elements", *n),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BatchSize {
    SmallInput,
    LargeInput,
    PerIteration,
    NumBatches(u64),
    NumIterations(u64),
    #[doc(hidden)]
    __NonExhaustive,
}

impl BatchSize {
    fn batches(self) -> perflab::Batches {
        match self {
            BatchSize::SmallInput => perflab::Batches::Count(10),
            BatchSize::LargeInput => perflab::Batches::Count(1000),
            BatchSize::PerIteration => perflab::Batches::Size(1),
            BatchSize::NumBatches(k) => perflab::Batches::Count(k),
            BatchSize::NumIterations(s) => perflab::Batches::Size(s),
            BatchSize::__NonExhaustive => panic!("__NonExhaustive is not a valid BatchSize."),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SamplingMode {
    Auto,
    Linear,
    Flat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlottingBackend {
    Gnuplot,
    Plotters,
    None,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AxisScale {
    Linear,
    Logarithmic,
}

/// Plots are criterion's report; perflab writes its own. Accepted and ignored.
#[derive(Debug, Clone, Default)]
pub struct PlotConfiguration {
    _scale: Option<AxisScale>,
}

impl PlotConfiguration {
    pub fn summary_scale(mut self, scale: AxisScale) -> PlotConfiguration {
        self._scale = Some(scale);
        self
    }
}

/// A benchmark's id in a group: a function name and/or a parameter (a perflab parameter column).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BenchmarkId {
    function_name: Option<String>,
    parameter: Option<String>,
}

impl BenchmarkId {
    pub fn new<S: Into<String>, P: fmt::Display>(function_name: S, parameter: P) -> BenchmarkId {
        BenchmarkId { function_name: Some(function_name.into()), parameter: Some(parameter.to_string()) }
    }
    pub fn from_parameter<P: fmt::Display>(parameter: P) -> BenchmarkId {
        BenchmarkId { function_name: None, parameter: Some(parameter.to_string()) }
    }
}

impl fmt::Display for BenchmarkId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.function_name, &self.parameter) {
            (Some(n), Some(p)) => write!(f, "{}/{}", n, p),
            (Some(n), None) => write!(f, "{}", n),
            (None, Some(p)) => write!(f, "{}", p),
            (None, None) => Ok(()),
        }
    }
}

pub trait IntoBenchmarkId {
    fn into_benchmark_id(self) -> BenchmarkId;
}

impl IntoBenchmarkId for BenchmarkId {
    fn into_benchmark_id(self) -> BenchmarkId {
        self
    }
}

impl<S: Into<String>> IntoBenchmarkId for S {
    fn into_benchmark_id(self) -> BenchmarkId {
        BenchmarkId { function_name: Some(self.into()), parameter: None }
    }
}

// ------------------------------------------------------------------------------------------------
// Listing and targeting
// ------------------------------------------------------------------------------------------------

/// One `bench_function` / `bench_with_input` call found while listing.
struct Entry {
    group: Option<String>,
    function: String,
    parameter: Option<String>,
    file: &'static str,
    line: u32,
    throughput: Option<Throughput>,
    unsupported: Option<String>,
}

/// The benchmark being measured, and the worker's Bencher its routine goes to.
struct Target {
    group: Option<String>,
    function: String,
    parameter: Option<String>,
    bencher: *mut perflab::Bencher,
    hit: bool,
}

enum Mode {
    Idle,
    Listing(Vec<Entry>),
    Target(Target),
}

thread_local! {
    static MODE: RefCell<Mode> = const { RefCell::new(Mode::Idle) };
}

/// Unwinds out of the groups once the target has been measured (no hook runs for it).
struct Measured;

/// (perflab group, perflab name, parameter) of a call in `group` with `id`.
fn key_of(group: Option<&str>, id: &BenchmarkId) -> (Option<String>, String, Option<String>) {
    let function = match (&id.function_name, group) {
        (Some(f), _) => f.clone(),
        (None, Some(g)) => g.to_string(),
        (None, None) => id.parameter.clone().unwrap_or_default(),
    };
    let parameter = if id.function_name.is_none() && group.is_none() { None } else { id.parameter.clone() };
    (group.map(str::to_string), function, parameter)
}

/// What a benchmark call does: record it (listing), run it (it is the target), or nothing.
fn visit(
    group: Option<&str>,
    id: &BenchmarkId,
    throughput: Option<&Throughput>,
    unsupported: Option<&String>,
    location: &'static panic::Location<'static>,
    run: &mut dyn FnMut(&mut perflab::Bencher),
) {
    let (group, function, parameter) = key_of(group, id);
    let bencher = MODE.with(|m| match &mut *m.borrow_mut() {
        Mode::Idle => None,
        Mode::Listing(entries) => {
            entries.push(Entry {
                group,
                function,
                parameter,
                file: location.file(),
                line: location.line(),
                throughput: throughput.cloned(),
                unsupported: unsupported.cloned(),
            });
            None
        }
        Mode::Target(t) => {
            if !t.hit && t.group == group && t.function == function && t.parameter == parameter {
                t.hit = true;
                Some(t.bencher)
            } else {
                None
            }
        }
    });
    if let Some(b) = bencher {
        // SAFETY: the worker's Bencher outlives the setup call this runs inside (see `__register`).
        let b = unsafe { &mut *b };
        if let Some(t) = throughput {
            let (unit, base, n) = t.rate();
            b.__rate("Throughput", n as f64, unit, base);
        }
        run(b);
        panic::resume_unwind(Box::new(Measured));
    }
}

/// `criterion_main!`'s `register`: lists the benchmarks of `groups` into perflab's registry.
#[doc(hidden)]
pub fn __register(r: &mut perflab::Registry, file: &'static str, groups: &[fn()]) {
    let groups: Rc<Vec<fn()>> = Rc::new(groups.to_vec());
    MODE.with(|m| *m.borrow_mut() = Mode::Listing(Vec::new()));
    let listed = panic::catch_unwind(AssertUnwindSafe(|| groups.iter().for_each(|g| g())));
    let entries = match MODE.with(|m| std::mem::replace(&mut *m.borrow_mut(), Mode::Idle)) {
        Mode::Listing(e) => e,
        _ => Vec::new(),
    };
    // one perflab benchmark per (group, function); its parameters are its `parameter` column
    let mut merged: Vec<(Option<String>, String, Vec<Entry>)> = Vec::new();
    for e in entries {
        match merged.iter_mut().find(|(g, f, _)| *g == e.group && *f == e.function) {
            Some((_, _, list)) => list.push(e),
            None => merged.push((e.group.clone(), e.function.clone(), vec![e])),
        }
    }
    for (group, function, list) in merged {
        let first = &list[0];
        let with_param = list.iter().any(|e| e.parameter.is_some());
        let (g, f) = (group.clone(), function.clone());
        let groups = Rc::clone(&groups);
        let def = r.__scoped(&function, file, first.file, first.line, move |b: &mut perflab::Bencher| {
            let parameter = if with_param { b.__params().first().map(|(_, v)| v.clone()) } else { None };
            let target = Target { group: g.clone(), function: f.clone(), parameter, bencher: b, hit: false };
            MODE.with(|m| *m.borrow_mut() = Mode::Target(target));
            let ran = panic::catch_unwind(AssertUnwindSafe(|| groups.iter().for_each(|g| g())));
            MODE.with(|m| *m.borrow_mut() = Mode::Idle);
            if let Err(payload) = ran {
                if !payload.is::<Measured>() {
                    panic::resume_unwind(payload);
                }
            }
        });
        if let Some(g) = &group {
            def.group(g);
        }
        if with_param {
            let mut values: Vec<String> = Vec::new();
            for e in &list {
                let v = e.parameter.clone().unwrap_or_default();
                if !values.contains(&v) {
                    values.push(v);
                }
            }
            def.param("parameter", &values);
        }
        let throughputs: Vec<&Throughput> = list.iter().filter_map(|e| e.throughput.as_ref()).collect();
        if let Some(t) = throughputs.first() {
            let (unit, n) = t.describe();
            if throughputs.len() == list.len() && throughputs.iter().all(|x| x == t) {
                def.meta("throughput", format!("{} {} per iteration", n, unit));
                def.meta(&format!("throughput_{}", unit), n as i64);
            } else {
                let per: Vec<String> = list
                    .iter()
                    .filter_map(|e| {
                        let (u, n) = e.throughput.as_ref()?.describe();
                        Some(format!("{}: {} {}", e.parameter.as_deref().unwrap_or("-"), n, u))
                    })
                    .collect();
                def.meta("throughput", format!("per iteration, by parameter: {}", per.join(", ")));
            }
        }
        if let Some(why) = list.iter().find_map(|e| e.unsupported.clone()) {
            def.__unsupported(&why);
        }
    }
    if let Err(payload) = listed {
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        let stem = std::path::Path::new(file).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        r.__scoped(&stem, file, file, 0, |_b: &mut perflab::Bencher| {})
            .__unsupported(&format!("the benchmark groups panicked while listing their benchmarks: {}", msg));
    }
}

// ------------------------------------------------------------------------------------------------
// Criterion, BenchmarkGroup, Bencher
// ------------------------------------------------------------------------------------------------

pub struct Criterion<M: Measurement = WallTime> {
    measurement: M,
    unsupported: Option<String>,
}

impl Default for Criterion<WallTime> {
    fn default() -> Criterion<WallTime> {
        Criterion { measurement: WallTime, unsupported: None }
    }
}

impl<M: Measurement> Criterion<M> {
    /// A custom measurement: its benchmarks fail alone (perflab measures wall time).
    #[track_caller]
    pub fn with_measurement<M2: Measurement>(self, m: M2) -> Criterion<M2> {
        let loc = panic::Location::caller();
        let unsupported = if m.__perflab_wall_time() {
            self.unsupported
        } else {
            Some(format!(
                "criterion::measurement custom measurement (Criterion::with_measurement at {}:{}) is not supported: perflab measures wall time",
                loc.file(),
                loc.line()
            ))
        };
        Criterion { measurement: m, unsupported }
    }
    pub fn with_profiler<P: profiler::Profiler + 'static>(self, _p: P) -> Criterion<M> {
        self
    }
    pub fn plotting_backend(self, _backend: PlottingBackend) -> Criterion<M> {
        self
    }
    pub fn sample_size(self, _n: usize) -> Criterion<M> {
        self
    }
    pub fn warm_up_time(self, _dur: Duration) -> Criterion<M> {
        self
    }
    pub fn measurement_time(self, _dur: Duration) -> Criterion<M> {
        self
    }
    pub fn nresamples(self, _n: usize) -> Criterion<M> {
        self
    }
    pub fn noise_threshold(self, _threshold: f64) -> Criterion<M> {
        self
    }
    pub fn confidence_level(self, _cl: f64) -> Criterion<M> {
        self
    }
    pub fn significance_level(self, _sl: f64) -> Criterion<M> {
        self
    }
    pub fn with_plots(self) -> Criterion<M> {
        self
    }
    pub fn without_plots(self) -> Criterion<M> {
        self
    }
    pub fn save_baseline(self, _baseline: String) -> Criterion<M> {
        self
    }
    pub fn retain_baseline(self, _baseline: String, _strict: bool) -> Criterion<M> {
        self
    }
    pub fn with_filter<S: Into<String>>(self, _filter: S) -> Criterion<M> {
        self
    }
    pub fn with_output_color(self, _enabled: bool) -> Criterion<M> {
        self
    }
    pub fn profile_time(self, _profile_time: Option<Duration>) -> Criterion<M> {
        self
    }
    /// perflab's command line chooses what runs (`--filter`); criterion's arguments are not read.
    pub fn configure_from_args(self) -> Criterion<M> {
        self
    }
    pub fn final_summary(&self) {}

    #[track_caller]
    pub fn bench_function<F>(&mut self, id: &str, mut f: F) -> &mut Criterion<M>
    where
        F: FnMut(&mut Bencher<'_, M>),
    {
        let loc = panic::Location::caller();
        let id = BenchmarkId { function_name: Some(id.to_string()), parameter: None };
        let m = &self.measurement;
        visit(None, &id, None, self.unsupported.as_ref(), loc, &mut |b| f(&mut Bencher::new(b, m)));
        self
    }

    #[track_caller]
    pub fn bench_with_input<F, I: ?Sized>(&mut self, id: BenchmarkId, input: &I, mut f: F) -> &mut Criterion<M>
    where
        F: FnMut(&mut Bencher<'_, M>, &I),
    {
        let loc = panic::Location::caller();
        let m = &self.measurement;
        visit(None, &id, None, self.unsupported.as_ref(), loc, &mut |b| f(&mut Bencher::new(b, m), input));
        self
    }

    /// criterion 0.3's form of `bench_with_input` over several inputs (removed in 0.4): one benchmark
    /// `id`, each input (shown with `{:?}`, as 0.3 does) a value of its `parameter` column.
    #[track_caller]
    pub fn bench_function_over_inputs<I, F>(&mut self, id: &str, mut f: F, inputs: I) -> &mut Criterion<M>
    where
        I: IntoIterator,
        I::Item: fmt::Debug + 'static,
        F: FnMut(&mut Bencher<'_, M>, &I::Item) + 'static,
    {
        let loc = panic::Location::caller();
        let m = &self.measurement;
        for input in inputs {
            let bid = BenchmarkId::new(id, format!("{:?}", input));
            visit(None, &bid, None, self.unsupported.as_ref(), loc, &mut |b| f(&mut Bencher::new(b, m), &input));
        }
        self
    }

    pub fn benchmark_group<S: Into<String>>(&mut self, group_name: S) -> BenchmarkGroup<'_, M> {
        BenchmarkGroup { criterion: self, name: group_name.into(), throughput: None }
    }
}

pub struct BenchmarkGroup<'a, M: Measurement = WallTime> {
    criterion: &'a mut Criterion<M>,
    name: String,
    throughput: Option<Throughput>,
}

impl<'a, M: Measurement> BenchmarkGroup<'a, M> {
    pub fn sample_size(&mut self, _n: usize) -> &mut Self {
        self
    }
    pub fn warm_up_time(&mut self, _dur: Duration) -> &mut Self {
        self
    }
    pub fn measurement_time(&mut self, _dur: Duration) -> &mut Self {
        self
    }
    pub fn nresamples(&mut self, _n: usize) -> &mut Self {
        self
    }
    pub fn noise_threshold(&mut self, _threshold: f64) -> &mut Self {
        self
    }
    pub fn confidence_level(&mut self, _cl: f64) -> &mut Self {
        self
    }
    pub fn significance_level(&mut self, _sl: f64) -> &mut Self {
        self
    }
    pub fn sampling_mode(&mut self, _mode: SamplingMode) -> &mut Self {
        self
    }
    pub fn plot_config(&mut self, _config: PlotConfiguration) -> &mut Self {
        self
    }
    /// The benchmarks added after it get a `Throughput` column (bytes or elements per second at
    /// perflab's mean), and `meta.throughput` in the results.
    pub fn throughput(&mut self, throughput: Throughput) -> &mut Self {
        self.throughput = Some(throughput);
        self
    }

    #[track_caller]
    pub fn bench_function<ID: IntoBenchmarkId, F>(&mut self, id: ID, mut f: F) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, M>),
    {
        let loc = panic::Location::caller();
        let id = id.into_benchmark_id();
        let m = &self.criterion.measurement;
        let unsupported = self.criterion.unsupported.as_ref();
        visit(Some(&self.name), &id, self.throughput.as_ref(), unsupported, loc, &mut |b| f(&mut Bencher::new(b, m)));
        self
    }

    #[track_caller]
    pub fn bench_with_input<ID: IntoBenchmarkId, F, I: ?Sized>(&mut self, id: ID, input: &I, mut f: F) -> &mut Self
    where
        F: FnMut(&mut Bencher<'_, M>, &I),
    {
        let loc = panic::Location::caller();
        let id = id.into_benchmark_id();
        let m = &self.criterion.measurement;
        let unsupported = self.criterion.unsupported.as_ref();
        visit(Some(&self.name), &id, self.throughput.as_ref(), unsupported, loc, &mut |b| {
            f(&mut Bencher::new(b, m), input)
        });
        self
    }

    pub fn finish(self) {}
}

/// Given to a benchmark's closure: its `iter*` call hands the routine to perflab, which measures it
/// right there (the call returns once perflab is done with this case).
pub struct Bencher<'a, M: Measurement = WallTime> {
    inner: &'a mut perflab::Bencher,
    measurement: &'a M,
}

impl<'a, M: Measurement> Bencher<'a, M> {
    fn new(inner: &'a mut perflab::Bencher, measurement: &'a M) -> Self {
        Bencher { inner, measurement }
    }

    /// Times `routine`; its output goes through `black_box` and is dropped inside the timed loop.
    pub fn iter<O, R: FnMut() -> O>(&mut self, routine: R) {
        self.inner.__serve_iter(routine);
    }

    /// `routine(iters)` runs `iters` iterations and returns the time they took.
    pub fn iter_custom<R: FnMut(u64) -> M::Value>(&mut self, mut routine: R) {
        let m = self.measurement;
        self.inner.__serve_custom(move |n| m.to_f64(&routine(n)).max(0.0) as u64);
    }

    /// Outputs are dropped outside the timed region.
    pub fn iter_with_large_drop<O, R: FnMut() -> O>(&mut self, routine: R) {
        self.inner.__serve_large_drop(routine);
    }

    /// `setup` makes one input per iteration outside timing (criterion: `iter_batched` with
    /// `BatchSize::PerIteration`).
    pub fn iter_with_setup<I, O, S: FnMut() -> I, R: FnMut(I) -> O>(&mut self, setup: S, routine: R) {
        self.inner.__serve_batched(setup, routine, BatchSize::PerIteration.batches());
    }

    pub fn iter_batched<I, O, S: FnMut() -> I, R: FnMut(I) -> O>(&mut self, setup: S, routine: R, size: BatchSize) {
        self.inner.__serve_batched(setup, routine, size.batches());
    }

    pub fn iter_batched_ref<I, O, S: FnMut() -> I, R: FnMut(&mut I) -> O>(
        &mut self,
        setup: S,
        routine: R,
        size: BatchSize,
    ) {
        self.inner.__serve_batched_ref(setup, routine, size.batches());
    }

    /// Async benchmarks are not supported: the benchmark fails alone, naming this call.
    #[track_caller]
    pub fn to_async<'b, A: async_executor::AsyncExecutor>(&'b mut self, _runner: A) -> AsyncBencher<'a, 'b, A, M> {
        // a panic in a #[track_caller] function is located at its caller: the host shows that file:line
        panic!("criterion's Bencher::to_async (async benchmarks) is not supported by perflab")
    }
}

/// Exists so that files using `to_async` compile; `to_async` itself fails the benchmark.
pub struct AsyncBencher<'a, 'b, A: async_executor::AsyncExecutor, M: Measurement = WallTime> {
    _b: &'b mut Bencher<'a, M>,
    _runner: A,
}

impl<'a, 'b, A: async_executor::AsyncExecutor, M: Measurement> AsyncBencher<'a, 'b, A, M> {
    pub fn iter<O, R, F>(&mut self, _routine: R)
    where
        R: FnMut() -> F,
        F: std::future::Future<Output = O>,
    {
        unreachable!()
    }
    pub fn iter_custom<R, F>(&mut self, _routine: R)
    where
        R: FnMut(u64) -> F,
        F: std::future::Future<Output = M::Value>,
    {
        unreachable!()
    }
    pub fn iter_with_large_drop<O, R, F>(&mut self, _routine: R)
    where
        R: FnMut() -> F,
        F: std::future::Future<Output = O>,
    {
        unreachable!()
    }
    pub fn iter_with_setup<I, O, S, R, F>(&mut self, _setup: S, _routine: R)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: std::future::Future<Output = O>,
    {
        unreachable!()
    }
    pub fn iter_batched<I, O, S, R, F>(&mut self, _setup: S, _routine: R, _size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(I) -> F,
        F: std::future::Future<Output = O>,
    {
        unreachable!()
    }
    pub fn iter_batched_ref<I, O, S, R, F>(&mut self, _setup: S, _routine: R, _size: BatchSize)
    where
        S: FnMut() -> I,
        R: FnMut(&mut I) -> F,
        F: std::future::Future<Output = O>,
    {
        unreachable!()
    }
}

// ------------------------------------------------------------------------------------------------
// Macros
// ------------------------------------------------------------------------------------------------

#[macro_export]
macro_rules! criterion_group {
    (name = $name:ident; config = $config:expr; targets = $( $target:path ),+ $(,)*) => {
        pub fn $name() {
            let mut criterion: $crate::Criterion<_> = $config.configure_from_args();
            $( $target(&mut criterion); )+
        }
    };
    ($name:ident, $( $target:path ),+ $(,)*) => {
        $crate::criterion_group! {
            name = $name;
            config = $crate::Criterion::default();
            targets = $( $target ),+
        }
    };
}

/// Defines the file's `register` (how perflab finds its benchmarks) instead of `main`.
#[macro_export]
macro_rules! criterion_main {
    ( $( $group:path ),+ $(,)* ) => {
        pub fn register(r: &mut $crate::__perflab::Registry) {
            $crate::__register(r, file!(), &[ $( $group as fn() ),+ ]);
        }
    };
}
