//! Threading experiments of seeds 000 (".NET 6": Threading), 001 (threading sections of .NET 6/7/8)
//! and 003 (".NET Core 3.0": Threading), ported to std::thread, std::sync (Mutex, Condvar, atomics,
//! mpsc channels), thread_local! and std::task. Names follow the seeds' methods.
//!
//! std has no CancellationTokenSource, semaphore, thread pool or async runtime: the port builds the
//! smallest idiomatic form of each from std parts (a token source = `Arc` + `AtomicBool` + a
//! `Mutex<Vec<callback>>`; a semaphore = `Mutex<usize>` + `Condvar`; a pool = worker threads fed by
//! an mpsc channel; `block_on` = poll + `thread::park` with a `std::task::Wake` waker).
use perflab::{black_box, Bencher, Registry};
use std::cell::Cell;
use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use std::time::Duration;

// -- Thread-pool starvation (000 "Threading", a console app with a stopwatch) -------------------

/// A manual-reset event: `Mutex<bool>` + `Condvar`.
struct Event {
    set: Mutex<bool>,
    cv: Condvar,
}

impl Event {
    fn new() -> Self {
        Event { set: Mutex::new(false), cv: Condvar::new() }
    }
    fn set(&self) {
        *self.set.lock().unwrap() = true;
        self.cv.notify_all();
    }
    fn wait(&self) {
        let mut g = self.set.lock().unwrap();
        while !*g {
            g = self.cv.wait(g).unwrap();
        }
    }
    fn is_set(&self) -> bool {
        *self.set.lock().unwrap()
    }
}

/// One invocation = the seed's whole scenario: `items` work items block until a final work item
/// sets an event; time until all are done. std has no thread pool (nothing to starve): every
/// work item is a scoped thread, `workers` = items + 1 threads in all.
fn thread_pool_starvation(b: &mut Bencher) {
    let items: usize = b.param_as("items");
    let workers: usize = b.param_as("workers");
    assert_eq!(workers, items + 1, "one thread per work item: workers must be items + 1");
    b.iter(move || {
        let done = Event::new();
        thread::scope(|s| {
            for _ in 0..items {
                s.spawn(|| done.wait());
            }
            s.spawn(|| done.set());
        });
        done.is_set()
    });
}

// -- CancellationToken register/dispose (000 "Threading") ----------------------------------------

type Callback = Box<dyn FnOnce() + Send>;

/// The smallest CancellationTokenSource: a cancelled flag and the registered callbacks.
struct TokenSource {
    cancelled: AtomicBool,
    callbacks: Mutex<Callbacks>,
}

struct Callbacks {
    next_id: u64,
    list: Vec<(u64, Callback)>,
}

/// CancellationTokenRegistration: dropping it (Dispose) unregisters the callback.
struct Registration<'a> {
    source: &'a TokenSource,
    id: u64,
}

impl TokenSource {
    fn new() -> Arc<TokenSource> {
        Arc::new(TokenSource {
            cancelled: AtomicBool::new(false),
            callbacks: Mutex::new(Callbacks { next_id: 0, list: Vec::new() }),
        })
    }
    fn is_cancellation_requested(&self) -> bool {
        self.cancelled.load(Ordering::Acquire)
    }
    fn register(&self, f: impl FnOnce() + Send + 'static) -> Registration<'_> {
        let mut cbs = self.callbacks.lock().unwrap();
        cbs.next_id += 1;
        let id = cbs.next_id;
        cbs.list.push((id, Box::new(f)));
        Registration { source: self, id }
    }
    fn cancel(&self) {
        if self.cancelled.swap(true, Ordering::AcqRel) {
            return;
        }
        let list = std::mem::take(&mut self.callbacks.lock().unwrap().list);
        for (_, f) in list.into_iter().rev() {
            f();
        }
    }
}

impl Drop for Registration<'_> {
    fn drop(&mut self) {
        let mut cbs = self.source.callbacks.lock().unwrap();
        // registrations are mostly disposed newest first: search from the end
        if let Some(i) = cbs.list.iter().rposition(|(id, _)| *id == self.id) {
            let removed = cbs.list.remove(i);
            drop(cbs);
            drop(removed);
        }
    }
}

const MANY: u64 = 10_000;

/// `using (var cts = new CancellationTokenSource()) _ = cts.Token;`
fn create_token_dispose() -> bool {
    let cts = TokenSource::new();
    black_box(&cts).is_cancellation_requested()
}

/// `cts.Token.Register(s => { }, null).Dispose()` on a new source.
fn create_register_dispose() -> bool {
    let cts = TokenSource::new();
    drop(black_box(&cts).register(|| {}));
    cts.is_cancellation_requested()
}

/// A source linked to a long-lived parent: the child registers "cancel me" on the parent and
/// unregisters when disposed.
fn create_linked_token_dispose(b: &mut Bencher) {
    let parent = TokenSource::new();
    b.iter(move || {
        let child = TokenSource::new();
        let weak = Arc::downgrade(&child);
        let link = parent.register(move || {
            if let Some(c) = weak.upgrade() {
                c.cancel();
            }
        });
        let r = child.is_cancellation_requested();
        drop(link);
        r
    });
}

/// One source, 10 000 register/dispose pairs (the seed: 1 000 000; ops keeps it per pair).
fn create_many_register_dispose() -> usize {
    let cts = TokenSource::new();
    let ct = black_box(&*cts);
    for _ in 0..MANY {
        drop(ct.register(|| {}));
    }
    let n = cts.callbacks.lock().unwrap().list.len();
    n
}

/// Five registrations alive at once, disposed in reverse order, 10 000 times.
fn create_many_register_multiple_dispose() -> usize {
    let cts = TokenSource::new();
    let ct = black_box(&*cts);
    for _ in 0..MANY {
        let r1 = ct.register(|| {});
        let r2 = ct.register(|| {});
        let r3 = ct.register(|| {});
        let r4 = ct.register(|| {});
        let r5 = ct.register(|| {});
        drop(r5);
        drop(r4);
        drop(r3);
        drop(r2);
        drop(r1);
    }
    let n = cts.callbacks.lock().unwrap().list.len();
    n
}

/// The thread-world form: create an event (Mutex<bool> + Condvar), signal it, observe it.
fn cancel_event() -> bool {
    let ev = Event::new();
    black_box(&ev).set();
    ev.is_set()
}

// -- SemaphoreSlim with a token / timeout (000 "Threading") ---------------------------------------

struct Semaphore {
    count: Mutex<usize>,
    cv: Condvar,
}

impl Semaphore {
    fn new(n: usize) -> Self {
        Semaphore { count: Mutex::new(n), cv: Condvar::new() }
    }
    fn release(&self) {
        *self.count.lock().unwrap() += 1;
        self.cv.notify_one();
    }
    fn acquire(&self) {
        let mut c = self.count.lock().unwrap();
        while *c == 0 {
            c = self.cv.wait(c).unwrap();
        }
        *c -= 1;
    }
    fn acquire_timeout(&self, timeout: Duration) -> bool {
        let (mut c, res) = self.cv.wait_timeout_while(self.count.lock().unwrap(), timeout, |c| *c == 0).unwrap();
        if res.timed_out() {
            return false;
        }
        *c -= 1;
        true
    }
}

/// Release, then acquire with no timeout (there is no token: a blocking acquire).
fn with_cancellation_token(b: &mut Bencher) {
    let sem = Semaphore::new(0);
    b.iter(move || {
        sem.release();
        sem.acquire();
    });
}

/// Release, then acquire with a one-minute timeout (`Condvar::wait_timeout_while`).
fn with_timeout(b: &mut Bencher) {
    let sem = Semaphore::new(0);
    b.iter(move || {
        sem.release();
        sem.acquire_timeout(Duration::from_secs(60))
    });
}

// -- Channels PingPong (003 "Threading") ---------------------------------------------------------

/// Two threads and two unbounded mpsc channels: 10 000 round trips per call (seed: Channel<int>).
fn ping_pong(b: &mut Bencher) {
    let (to_echo, rx) = mpsc::channel::<u32>();
    let (tx, back) = mpsc::channel::<u32>();
    let echo = thread::spawn(move || {
        for item in rx {
            if tx.send(item).is_err() {
                return;
            }
        }
    });
    b.iter(move || {
        let mut sum = 0u32;
        for i in 0..10_000u32 {
            to_echo.send(i).unwrap();
            sum = sum.wrapping_add(back.recv().unwrap());
        }
        sum
    });
    // the routine (and with it the sender) is dropped before teardown: the echo thread ends
    b.teardown(move || {
        let _ = echo.join();
    });
}

// -- Parallel (001 "Parallel") -------------------------------------------------------------------

type Job = Box<dyn FnOnce() -> u64 + Send>;

/// A fixed pool of worker threads fed by one mpsc channel, results back through another.
struct Pool {
    jobs: Option<mpsc::Sender<Job>>,
    results: mpsc::Receiver<u64>,
    threads: Vec<thread::JoinHandle<()>>,
}

impl Pool {
    fn new(n: usize) -> Self {
        let (jobs, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let (tx, results) = mpsc::channel();
        let threads = (0..n)
            .map(|_| {
                let (rx, tx) = (rx.clone(), tx.clone());
                thread::spawn(move || loop {
                    let job = rx.lock().unwrap().recv();
                    match job {
                        Ok(job) => {
                            if tx.send(job()).is_err() {
                                return;
                            }
                        }
                        Err(_) => return,
                    }
                })
            })
            .collect();
        Pool { jobs: Some(jobs), results, threads }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        drop(self.jobs.take());
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Parallel.For over 0..count on a pool of 2 workers (the machine's cores), in chunks of 64:
/// the sum of squares.
fn parallel_for(b: &mut Bencher) {
    let count: u64 = b.param_as("count");
    let pool = Pool::new(2);
    b.iter(move || {
        let jobs = pool.jobs.as_ref().unwrap();
        let mut n = 0;
        let mut start = 0;
        while start < count {
            let end = (start + 64).min(count);
            jobs.send(Box::new(move || (start..end).map(|i| i * i).sum())).unwrap();
            n += 1;
            start = end;
        }
        (0..n).map(|_| pool.results.recv().unwrap()).sum::<u64>()
    });
}

// -- ThreadStatic (001) ------------------------------------------------------------------------

thread_local! {
    static T_VALUE: Cell<u64> = const { Cell::new(0) };
}

/// `++t_value` on a [ThreadStatic] field ↔ a `thread_local!` `Cell`.
fn increment() -> u64 {
    T_VALUE.with(|v| {
        let n = v.get() + 1;
        v.set(n);
        n
    })
}

// -- Tasks (001) -------------------------------------------------------------------------------

/// `await Task.Yield()`: a future that is pending once and wakes itself.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

struct ThreadWaker(thread::Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

fn block_on<F: Future>(waker: &Waker, fut: F) -> F::Output {
    let mut fut = pin!(fut);
    let mut cx = Context::from_waker(waker);
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        thread::park();
    }
}

/// Run an `async` block that awaits one yield, on a minimal park/unpark executor.
fn yield_once(b: &mut Bencher) {
    // made on the first call: the waker must unpark the thread that runs the routine
    let mut waker: Option<Waker> = None;
    b.iter(move || {
        let waker = waker.get_or_insert_with(|| Waker::from(Arc::new(ThreadWaker(thread::current()))));
        block_on(waker, async {
            YieldNow(false).await;
        })
    });
}

// -- Current thread (003) ----------------------------------------------------------------------

fn current_thread() -> thread::Thread {
    thread::current()
}

// -- registration ------------------------------------------------------------------------------

const CANCEL_DIFFERENT: &str = "different: std has no cancellation token; the port's own CancellationTokenSource is measured";

pub fn register(r: &mut Registry) {
    r.bench("ThreadPoolStarvation", thread_pool_starvation)
        .param("items", &[48])
        .param("workers", &[49])
        .category("threading")
        .category("quick")
        .meta("seed", "000")
        .meta("section", "Threading")
        .meta("scenario", true)
        .meta("fidelity", "different: std has no thread pool; one thread per work item always completes, nothing starves");
    r.func("CreateTokenDispose", create_token_dispose)
        .category("threading")
        .category("quick")
        .meta("seed", "000")
        .meta("section", "Threading")
        .meta("fidelity", "different: std has no cancellation token; the port's own CancellationTokenSource is measured");
    r.func("CreateRegisterDispose", create_register_dispose)
        .category("threading")
        .meta("seed", "000")
        .meta("section", "Threading")
        .meta("fidelity", CANCEL_DIFFERENT);
    r.bench("CreateLinkedTokenDispose", create_linked_token_dispose)
        .category("threading")
        .meta("seed", "000")
        .meta("section", "Threading")
        .meta("fidelity", CANCEL_DIFFERENT);
    r.func("CreateManyRegisterDispose", create_many_register_dispose)
        .ops(MANY)
        .category("threading")
        .meta("seed", "000")
        .meta("section", "Threading")
        .meta("fidelity", CANCEL_DIFFERENT);
    r.func("CreateManyRegisterMultipleDispose", create_many_register_multiple_dispose)
        .ops(MANY)
        .category("threading")
        .meta("seed", "000")
        .meta("section", "Threading")
        .meta("fidelity", CANCEL_DIFFERENT);
    r.func("CancelEvent", cancel_event).category("threading").meta("extra", true).meta("related", "000 · Threading");
    r.bench("WithCancellationToken", with_cancellation_token)
        .category("threading")
        .category("quick")
        .meta("seed", "000")
        .meta("section", "Threading")
        .meta("fidelity", "different: the port's own Mutex + Condvar semaphore, released before the acquire (no async wait, no token)");
    r.bench("WithTimeout", with_timeout)
        .category("threading")
        .meta("seed", "000")
        .meta("section", "Threading")
        .meta("fidelity", "different: the port's own Mutex + Condvar semaphore, released before the timed acquire");
    r.bench("PingPong", ping_pong)
        .group("PingPong")
        .ops(10_000)
        .category("threading")
        .category("quick")
        .meta("seed", "003")
        .meta("section", "Threading")
        .meta("fidelity", "faithful");
    r.bench("ParallelFor", parallel_for)
        .param("count", &[1000])
        .group("Parallel")
        .category("threading")
        .meta("extra", true) // not a method of the seed
        .meta("related", "001 · Parallel");
    r.func("Increment", increment)
        .category("threading")
        .meta("seed", "001")
        .meta("section", "ThreadStatic")
        .meta("fidelity", "faithful");
    r.bench("YieldOnce", yield_once)
        .category("threading")
        .meta("seed", "001")
        .meta("section", "Tasks")
        .meta("fidelity", "different: std has no async runtime; the port's block_on polls a self-waking future twice on the calling thread (no pool hop, no allocation)");
    r.func("CurrentThread", current_thread)
        .category("threading")
        .meta("seed", "003")
        .meta("section", "Threading")
        .meta("fidelity", "faithful");
}
