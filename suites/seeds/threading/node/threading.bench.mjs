// Threading experiments of seeds 000 (".NET 6": Threading), 001 (threading sections of .NET 6/7/8)
// and 003 (".NET Core 3.0": Threading), ported to Node: worker_threads (the only JavaScript threads,
// each its own V8 isolate), SharedArrayBuffer + Atomics (blocking waits and wake-ups between
// threads), AbortController/AbortSignal (Node's CancellationTokenSource/CancellationToken), promises
// and timers. Names follow the seeds' methods.
import { Worker } from 'node:worker_threads';
import { setImmediate as yieldToLoop, setTimeout as delay } from 'node:timers/promises';
import { bench, group } from 'perflab';

const meta = (seed, section, extra = {}) => ({ seed, section, ...extra });

// A worker thread running `body` (CommonJS source: `parentPort`, `workerData` in scope), and a
// promise that settles when it is online.
function startWorker(body) {
  const w = new Worker(`const { parentPort, workerData } = require('node:worker_threads');\n${body}`,
    { eval: true });
  w.unref();
  const online = new Promise((resolve, reject) => { w.once('online', resolve); w.once('error', reject); });
  return { worker: w, online };
}

async function startPool(n, body) {
  const started = Array.from({ length: n }, () => startWorker(body));
  await Promise.all(started.map((s) => s.online));
  return started.map((s) => s.worker);
}

const terminateAll = (workers) => Promise.all(workers.map((w) => w.terminate()));

// -- Thread-pool starvation (000 "Threading", a console app with a stopwatch) -----------------------
// The seed queues 48 work items that block until a 49th sets an event, and times until all are
// done. Node never injects threads either (libuv's 4-thread pool runs no JavaScript; worker_threads
// are created explicitly), so — as the Python port does with its executor — the pool is big enough:
// `workers` threads, started once per case (starting 49 isolates takes ~2 s here, per call it would
// measure only that). One call = the scenario: 48 items that block in Atomics.wait on a fresh shared
// flag, one that sets it and wakes them (Atomics.notify); time until every item has reported back.

const STARVATION_WORKER = `
parentPort.on('message', ({ flag, release }) => {
  const f = new Int32Array(flag);
  if (release) { Atomics.store(f, 0, 1); Atomics.notify(f, 0); }
  else Atomics.wait(f, 0, 0);
  parentPort.postMessage(0);
});`;

bench('ThreadPoolStarvation', async (s) => {
  const flag = new SharedArrayBuffer(4);          // the seed's TaskCompletionSource, fresh each time
  const done = new Promise((resolve) => { s.pending = s.items + 1; s.resolve = resolve; });
  for (let i = 0; i < s.items; i++) s.pool[i].postMessage({ flag, release: false });
  s.pool[s.items].postMessage({ flag, release: true });
  await done;
}, {
  params: { items: [48], workers: [49] },
  setup: async ({ items, workers }) => {
    const s = { items, pool: await startPool(workers, STARVATION_WORKER), pending: 0, resolve: null };
    for (const w of s.pool) w.on('message', () => { if (--s.pending === 0) s.resolve(); });
    return s;
  },
  teardown: (s) => terminateAll(s.pool),
  categories: ['threading', 'quick'], meta: meta('000', 'Threading', { scenario: true, fidelity:
    'different: Node never injects threads; 49 workers started in setup for 49 items, so nothing starves' }),
});

// -- CancellationToken create/register/dispose (000 "Threading") ------------------------------------
// CancellationTokenSource ↔ AbortController, its Token ↔ .signal, Register/Dispose ↔
// addEventListener('abort')/removeEventListener, a linked source ↔ a controller aborted by a listener
// on the parent's signal (AbortSignal.any is Node ≥ 20.3). Nothing to dispose: the GC reclaims it.

const noop = () => {};
const noop2 = () => {};
const noop3 = () => {};
const noop4 = () => {};
const noop5 = () => {};
const CANCEL = meta('000', 'Threading');
const EXTRA = { extra: true, related: '000 · Threading' };

bench('CreateTokenDispose', () => new AbortController().signal,
  { categories: ['threading'], meta: { ...CANCEL, fidelity: 'faithful' } });

bench('CreateRegisterDispose', () => {
  const cts = new AbortController();
  const token = cts.signal;
  token.addEventListener('abort', noop);
  token.removeEventListener('abort', noop);
  return cts;
}, { categories: ['threading'], meta: { ...CANCEL, fidelity: 'faithful' } });

bench('CreateLinkedTokenDispose', ({ parent }) => {
  const cts = new AbortController();
  const link = () => cts.abort(parent.signal.reason);
  parent.signal.addEventListener('abort', link);
  parent.signal.removeEventListener('abort', link);
  return cts.signal;
}, { setup: () => ({ parent: new AbortController() }), categories: ['threading'], meta: { ...CANCEL,
  fidelity: "partial: a listener on the parent's signal stands for CreateLinkedTokenSource (AbortSignal.any is Node >= 20.3)" } });

// 10 000 registrations per call, where the seed makes 1 000 000 (ops keeps the figure per registration):
// with five listeners alive, a million rounds take over a minute per call in Node.
const MANY = 10000;
const MANY_META = { ...CANCEL, fidelity: 'partial: 10 000 registrations per call instead of 1 000 000' };

// One token, 10 000 register/dispose pairs (the seed: 1 000 000; ops keeps it per pair).
bench('CreateManyRegisterDispose', () => {
  const cts = new AbortController();
  const token = cts.signal;
  for (let i = 0; i < MANY; i++) {
    token.addEventListener('abort', noop);
    token.removeEventListener('abort', noop);
  }
  return cts;
}, { ops: MANY, categories: ['threading'], meta: MANY_META });

// Five registrations alive at once, disposed in reverse order, 10 000 times.
bench('CreateManyRegisterMultipleDispose', () => {
  const cts = new AbortController();
  const token = cts.signal;
  for (let i = 0; i < MANY; i++) {
    token.addEventListener('abort', noop);
    token.addEventListener('abort', noop2);
    token.addEventListener('abort', noop3);
    token.addEventListener('abort', noop4);
    token.addEventListener('abort', noop5);
    token.removeEventListener('abort', noop5);
    token.removeEventListener('abort', noop4);
    token.removeEventListener('abort', noop3);
    token.removeEventListener('abort', noop2);
    token.removeEventListener('abort', noop);
  }
  return cts;
}, { ops: MANY, categories: ['threading'], meta: MANY_META });

// The thread-world form: a fresh shared flag (an Int32Array on a SharedArrayBuffer, what threads
// block on with Atomics.wait), set and notified, then observed.
bench('CancelEvent', () => {
  const ev = new Int32Array(new SharedArrayBuffer(4));
  Atomics.store(ev, 0, 1);
  Atomics.notify(ev, 0);
  return Atomics.load(ev, 0);
}, { categories: ['threading'], meta: EXTRA });

// -- SemaphoreSlim.WaitAsync with a token / a timeout (000 "Threading") ----------------------------
// Node has no semaphore; this is SemaphoreSlim's async path in a few lines: a count and a queue of
// waiters, each settled by release(), by its token (an AbortSignal listener) or by its timeout (a
// timer). What is timed is Node's promise, EventTarget and timer machinery. As in the seed, the wait
// is started on an empty semaphore and then released, so every call creates and completes a waiter.

class SemaphoreSlim {
  constructor(count) {
    this.count = count;
    this.waiters = [];
  }

  waitAsync(signal = null, timeoutMs = -1) {
    if (this.count > 0) {
      this.count--;
      return Promise.resolve(true);
    }
    return new Promise((resolve, reject) => {
      const w = { settle: null, timer: null, onAbort: null };
      const cleanup = () => {
        if (w.timer !== null) clearTimeout(w.timer);
        if (w.onAbort !== null) signal.removeEventListener('abort', w.onAbort);
      };
      const drop = () => { const i = this.waiters.indexOf(w); if (i >= 0) this.waiters.splice(i, 1); };
      w.settle = () => { cleanup(); resolve(true); };
      if (signal !== null) {
        w.onAbort = () => { drop(); cleanup(); reject(signal.reason); };
        signal.addEventListener('abort', w.onAbort);
      }
      if (timeoutMs >= 0) w.timer = setTimeout(() => { drop(); cleanup(); resolve(false); }, timeoutMs);
      this.waiters.push(w);
    });
  }

  release() {
    const w = this.waiters.shift();
    if (w) w.settle();
    else this.count++;
  }
}

const SEM = { setup: () => ({ sem: new SemaphoreSlim(0), cts: new AbortController() }),
  categories: ['threading'], meta: meta('000', 'Threading', {
    fidelity: "partial: Node has no semaphore; SemaphoreSlim's async wait is the port's own JS class" }) };

bench('WithCancellationToken', ({ sem, cts }) => {
  const t = sem.waitAsync(cts.signal);
  sem.release();
  return t;
}, { ...SEM, categories: ['threading', 'quick'] });

bench('WithTimeout', ({ sem }) => {
  const t = sem.waitAsync(null, 60000);            // TimeSpan.FromMinutes(1)
  sem.release();
  return t;
}, SEM);

// The pattern the seed says WaitAsync(timeout) replaced: race the wait against a cancellable delay
// (timers/promises setTimeout with a signal, ↔ Task.WhenAny(Task.Delay(timeout, cts.Token), t)),
// then cancel the delay.
bench('WithTimeoutAsync', async ({ sem }) => {
  const cts = new AbortController();
  const t = sem.waitAsync();
  sem.release();
  const timeout = delay(60000, false, { signal: cts.signal }).catch(noop);
  const r = await Promise.race([t, timeout]);
  cts.abort();
  return r;
}, { ...SEM, meta: EXTRA });

// -- Channels PingPong (003 "Threading") ------------------------------------------------------------
// Two threads and a message channel each way (the worker's port); the main thread awaits each echo
// (seed: two unbounded Channel<int>s, 10 000 round trips). 10 000 round trips per call as in the
// seed (ops = 10 000): a postMessage round trip costs 15–100 µs here, so one call lasts up to a second.

const PINGS = 10000;

bench('PingPong', async (s) => {
  for (let i = 0; i < PINGS; i++) {
    const echoed = new Promise((resolve) => { s.next = resolve; });
    s.worker.postMessage(i);
    await echoed;
  }
}, {
  setup: async () => {
    const [worker] = await startPool(1, `parentPort.on('message', (i) => parentPort.postMessage(i));`);
    const s = { worker, next: null };
    worker.on('message', (i) => s.next(i));
    return s;
  },
  teardown: (s) => s.worker.terminate(),
  ops: PINGS, categories: ['threading', 'quick'], meta: meta('003', 'Threading', { fidelity: 'faithful' }),
});

// -- Parallel (001 "Parallel", 000) -----------------------------------------------------------------

const SQUARES_WORKER = `
parentPort.on('message', ([from, to]) => {
  let sum = 0;
  for (let i = from; i < to; i++) sum += i * i;
  parentPort.postMessage(sum);
});`;

group('Parallel', { params: { count: [1000] } }, () => {
  // Parallel.For over range(count) on a pool of 2 worker threads (the machine's cores), in chunks
  // of 64 handed out round-robin; the squares are summed.
  bench('ParallelFor', (s) => new Promise((resolve) => {
    const chunks = Math.ceil(s.count / 64);
    let pending = chunks;
    let sum = 0;
    s.onReply = (partial) => { sum += partial; if (--pending === 0) resolve(sum); };
    for (let c = 0; c < chunks; c++) {
      s.pool[c % s.pool.length].postMessage([c * 64, Math.min(s.count, (c + 1) * 64)]);
    }
  }), {
    setup: async ({ count }) => {
      const s = { count, pool: await startPool(2, SQUARES_WORKER), onReply: null };
      for (const w of s.pool) w.on('message', (partial) => s.onReply(partial));
      return s;
    },
    teardown: (s) => terminateAll(s.pool),
    categories: ['threading'], meta: { ...EXTRA, related: '001 · Parallel' },
  });

  // Promise.all over `count` tiny async functions (Parallel.ForEachAsync's shape; one thread).
  bench('ParallelForEachAsync', async ({ count }) => {
    const body = async (i) => i * i;
    const tasks = new Array(count);
    for (let i = 0; i < count; i++) tasks[i] = body(i);
    let sum = 0;
    for (const v of await Promise.all(tasks)) sum += v;
    return sum;
  }, { categories: ['threading'], meta: EXTRA });
});

// -- Tasks (001) -------------------------------------------------------------------------------------

// await Task.Yield() ↔ await a setImmediate: the continuation is queued behind the event loop's I/O.
bench('YieldOnce', async () => { await yieldToLoop(); }, {
  categories: ['threading'], meta: meta('001', 'Tasks', { fidelity: 'partial: one thread: the continuation waits '
    + "for the event loop's setImmediate phase; the seed's runs on a pool thread while BenchmarkDotNet blocks on the task" }),
});

// Not ported: Increment (001 ThreadStatic) — every module variable is already per thread (each
// worker is its own isolate), so there is no thread-local lookup to time; CurrentThread (003) —
// there is no thread object, worker_threads.threadId is a constant.
