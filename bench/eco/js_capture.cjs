// Preloaded (`node --require js_capture.cjs FILE`) when bench/eco/js_bench.py runs a package's
// benchmark file natively, with the real tinybench/mitata/benchmark from npm: it records what the
// harness itself measured, per benchmark, into $PERFLAB_CAPTURE (JSON lines) and changes nothing else.
//   Benchmark.js: each benchmark's `stats` at its 'complete' (mean and moe in seconds; moe = 95 %)
//   tinybench:    each task's result after bench.run() (mean and rme/sd of the latency, in ms)
//   mitata:       run()'s returned benchmarks: each run's stats.avg (ns), and a 95 % interval of that
//                 avg made here from mitata's own samples (mitata prints none): 1.96 sd / sqrt(n)
'use strict';
const fs = require('fs');
const Module = require('module');
const OUT = process.env.PERFLAB_CAPTURE;
// every record says which Node measured it: the study compares only against the same version
const record = (doc) => { if (OUT) fs.appendFileSync(OUT, JSON.stringify({ ...doc, node: process.versions.node }) + '\n'); };

// What the machine did to this process while a benchmark ran, from one mark to the next: the share
// of the wall time it was on a CPU (process.cpuUsage: all its threads, so it may exceed 1: V8's
// compiler and GC threads count too) and the share its main thread spent *runnable but waiting for a
// CPU* (run_delay of /proc/<pid>/task/<pid>/schedstat; Linux only, else null). The harnesses' means
// are wall-clock, so waiting for a CPU inflates them; a low cpu_share alone does not show that (an
// async benchmark also waits on its own I/O and timers), the run-queue wait does.
const SCHEDSTAT = `/proc/${process.pid}/task/${process.pid}/schedstat`;
function runDelayNs() {
  try { return Number(fs.readFileSync(SCHEDSTAT, 'utf8').split(' ')[1]); } catch { return null; }
}
function sched() { return { wall: process.hrtime.bigint(), cpu: process.cpuUsage(), delay: runDelayNs() }; }
function sharesSince(m) {
  if (!m) return { cpu_share: null, wait_share: null };
  const wallNs = Number(process.hrtime.bigint() - m.wall);
  const u = process.cpuUsage(m.cpu);
  const d = runDelayNs();
  return { cpu_share: wallNs > 0 ? (u.user + u.system) * 1e3 / wallNs : null,
    wait_share: wallNs > 0 && d !== null && m.delay !== null ? (d - m.delay) / wallNs : null };
}
let mark = null;
function markNow() { mark = sched(); }
function sharesSinceMark() { const r = sharesSince(mark); markNow(); return r; }

function patchBenchmark(B) {
  if (!B || B.__perflabCaptured || typeof B.Suite !== 'function') return;
  B.__perflabCaptured = true;
  const seen = new WeakSet();
  const capture = (suiteName) => function onComplete() {
    const s = this.stats || {};
    // Benchmark.js runs clones of a benchmark, one per cycle, each 'complete': only a finished one counts
    if (seen.has(this) || !(s.sample && s.sample.length)) return;
    seen.add(this);
    record({ harness: 'benchmark', group: suiteName || '', name: String(this.name), ...sharesSinceMark(),
      mean_ns: s.mean * 1e9, moe_ns: s.moe * 1e9, rme: s.rme, samples: (s.sample || []).length,
      error: this.error ? String(this.error) : null });
  };
  const benchRun = B.prototype.run;
  B.prototype.run = function run(...args) {
    this.on('complete', capture(this.__perflabSuite));
    if (!this.__perflabSuite) markNow();
    return benchRun.apply(this, args);
  };
  const suiteRun = B.Suite.prototype.run;
  B.Suite.prototype.run = function run(...args) {
    const name = this.name;
    this.forEach((b) => { b.__perflabSuite = name; });
    this.on('cycle', (e) => capture(name).call(e.target));
    markNow();
    return suiteRun.apply(this, args);
  };
}

function patchTinybench(T) {
  if (!T || typeof T.Bench !== 'function' || T.Bench.prototype.__perflabCaptured) return;
  T.Bench.prototype.__perflabCaptured = true;
  const shares = new WeakMap();  // task → what the machine did while it ran
  if (typeof T.Task === 'function') {
    const taskRun = T.Task.prototype.run;
    T.Task.prototype.run = async function (...args) {
      const m = sched();
      const out = await taskRun.apply(this, args);
      shares.set(this, sharesSince(m));
      return out;
    };
  }
  const run = T.Bench.prototype.run;
  T.Bench.prototype.run = async function (...args) {
    if (this.__perflabCalibration) return run.apply(this, args);
    markNow();
    const out = await run.apply(this, args);
    const whole = sharesSinceMark();  // of the whole run, for a version without an exported Task
    const overhead = await tinybenchOverhead(T, this);
    for (const t of this.tasks) {
      const isAsync = await returnsPromise(t);
      const r = t.result || {};
      const l = r.latency || r;  // v3+: result.latency; v2: the result itself (ms)
      record({ harness: 'tinybench', group: this.name || '', name: String(t.name), ...(shares.get(t) || whole),
        mean_ns: l.mean * 1e6, moe_ns: l.moe * 1e6, rme: l.rme, samples: (l.samples || []).length || l.samplesCount || 0,
        async: isAsync, overhead_ns: overhead, error: r.error ? String(r.error) : null });
    }
    return out;
  };
}

// Whether tinybench timed the task as async (it awaits a task that returns a promise): one more call,
// after its run, as tinybench itself probes, with the task's beforeEach/afterEach around it.
async function returnsPromise(t) {
  if (t.fn && t.fn.constructor && t.fn.constructor.name === 'AsyncFunction') return true;
  const o = t.opts || t.fnOpts || {};
  try {
    if (o.beforeEach) await o.beforeEach.call(t);
    const r = t.fn.call(t);
    const thenable = !!r && typeof r.then === 'function';
    if (thenable) await r;
    if (o.afterEach) await o.afterEach.call(t);
    return thenable;
  } catch { return null; }
}

// tinybench times every call on its own (now() before and after, an `await` when the task is async)
// and subtracts nothing: its mean includes that cost. Measured here, after the file's own run, with
// the same library and clock on an empty sync and an empty async task: { sync, async } in ns.
async function tinybenchOverhead(T, bench) {
  if (bench.__perflabCalibration) return null;
  try {
    const b = new T.Bench({ time: 200, now: bench.now });
    b.__perflabCalibration = true;
    b.add('empty sync', function () {}).add('empty async', async function () {});
    await b.run();
    const mean = (t) => { const r = t.result || {}; return ((r.latency || r).mean) * 1e6; };
    return { sync: mean(b.tasks[0]), async: mean(b.tasks[1]) };
  } catch { return null; }
}

// mitata v1 is an ES module: `require('mitata')` (Node >= 20.19) and `import` both give its frozen
// namespace, so the capture hands out a copy whose run() records what run() returned.
const mitataWrapped = new WeakMap();
function wrapMitata(ns) {
  if (!ns || typeof ns.run !== 'function' || typeof ns.bench !== 'function') return ns;
  if (mitataWrapped.has(ns)) return mitataWrapped.get(ns);
  const shares = new WeakMap();  // a trial's result → what the machine did while it ran
  if (typeof ns.B === 'function' && !ns.B.prototype.__perflabCaptured) {
    ns.B.prototype.__perflabCaptured = true;
    const trialRun = ns.B.prototype.run;
    ns.B.prototype.run = async function (...args) {
      const m = sched();
      const out = await trialRun.apply(this, args);
      if (out && typeof out === 'object') shares.set(out, sharesSince(m));
      return out;
    };
  }
  const run = ns.run;
  const wrapped = { ...ns, async run(...args) {
    markNow();
    const out = await run.apply(this, args);
    const whole = sharesSinceMark();
    const layout = out?.layout || [];
    for (const trial of out?.benchmarks || []) {
      const group = (layout[trial.group] && layout[trial.group].name) || '';
      for (const r of trial.runs || []) {
        const s = r.stats || {};
        const xs = s.samples || [];
        const n = xs.length;
        const sd = n > 1 ? Math.sqrt(xs.reduce((a, v) => a + (v - s.avg) ** 2, 0) / (n - 1)) : NaN;
        record({ harness: 'mitata', group: String(group), name: String(r.name), ...(shares.get(trial) || whole),
          mean_ns: s.avg, moe_ns: n > 1 ? 1.96 * sd / Math.sqrt(n) : null, samples: n, ticks: s.ticks,
          error: r.error ? String(r.error) : null });
      }
    }
    return out;
  } };
  if ('default' in ns) wrapped.default = wrapped;
  mitataWrapped.set(ns, wrapped);
  return wrapped;
}

const load = Module._load;
Module._load = function (request, parent, isMain) {
  const m = load.apply(this, arguments);
  if (request === 'benchmark' || /[\\/]benchmark[\\/]benchmark\.js$/.test(request)) patchBenchmark(m);
  if (request === 'tinybench' || /[\\/]tinybench[\\/]/.test(request)) patchTinybench(m);
  if (request === 'mitata') return wrapMitata(m);
  return m;
};
