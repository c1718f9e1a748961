// Preloaded (`node --require js_capture.cjs FILE`) when bench/eco/js_bench.py runs a package's
// benchmark file natively, with the real tinybench/mitata/benchmark from npm: it records what the
// harness itself measured, per benchmark, into $PERFLAB_CAPTURE (JSON lines) and changes nothing else.
//   Benchmark.js: each benchmark's `stats` at its 'complete' (mean and moe in seconds; moe = 95 %)
//   tinybench:    each task's result after bench.run() (mean and rme/sd of the latency, in ms)
//   mitata:       run()'s returned benchmarks (avg, min, max, p75, p99 in ns)
'use strict';
const fs = require('fs');
const Module = require('module');
const OUT = process.env.PERFLAB_CAPTURE;
const record = (doc) => { if (OUT) fs.appendFileSync(OUT, JSON.stringify(doc) + '\n'); };

// The share of a benchmark's wall time this process was on a CPU (process.cpuUsage: all its threads),
// from one mark to the next: the harness's means are wall-clock, and on a busy machine they include the
// time the process waited for a CPU. Recorded beside each result as cpu_share (may exceed 1: V8's
// compiler and GC threads count too).
let mark = null;
function markNow() { mark = { wall: process.hrtime.bigint(), cpu: process.cpuUsage() }; }
function cpuShareSinceMark() {
  if (!mark) return null;
  const wall = Number(process.hrtime.bigint() - mark.wall) / 1e3;
  const u = process.cpuUsage(mark.cpu);
  markNow();
  return wall > 0 ? (u.user + u.system) / wall : null;
}

function patchBenchmark(B) {
  if (!B || B.__perflabCaptured || typeof B.Suite !== 'function') return;
  B.__perflabCaptured = true;
  const seen = new WeakSet();
  const capture = (suiteName) => function onComplete() {
    const s = this.stats || {};
    // Benchmark.js runs clones of a benchmark, one per cycle, each 'complete': only a finished one counts
    if (seen.has(this) || !(s.sample && s.sample.length)) return;
    seen.add(this);
    record({ harness: 'benchmark', group: suiteName || '', name: String(this.name), cpu_share: cpuShareSinceMark(),
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
  const run = T.Bench.prototype.run;
  T.Bench.prototype.__perflabCaptured = true;
  T.Bench.prototype.run = async function (...args) {
    markNow();
    const out = await run.apply(this, args);
    const share = cpuShareSinceMark();  // of the whole run: tinybench runs its tasks back to back
    for (const t of this.tasks) {
      const r = t.result || {};
      const l = r.latency || r;  // v3+: result.latency; v2: the result itself (ms)
      record({ harness: 'tinybench', group: this.name || '', name: String(t.name), cpu_share: share, mean_ns: l.mean * 1e6,
        moe_ns: l.moe * 1e6, rme: l.rme, samples: (l.samples || []).length || l.samplesCount || 0,
        error: r.error ? String(r.error) : null });
    }
    return out;
  };
}

const load = Module._load;
Module._load = function (request, parent, isMain) {
  const m = load.apply(this, arguments);
  if (request === 'benchmark' || /[\\/]benchmark[\\/]benchmark\.js$/.test(request)) patchBenchmark(m);
  if (request === 'tinybench' || /[\\/]tinybench[\\/]/.test(request)) patchTinybench(m);
  return m;
};
