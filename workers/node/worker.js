// perflab's Node.js worker: started by the perflab host as `node [flags] worker.js`, it connects to
// PERFLAB_CONNECT, says hello with PERFLAB_TOKEN and then answers protocol-v2 requests (see
// protocol/PROTOCOL.md) one at a time: load benchmark files, set up a case, run timed stages, diagnose,
// tear down. It never computes statistics; it only times code and reports raw nanoseconds.
import net from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as nodeModule from 'node:module';
import { _registry as registry } from './index.js';
import * as tinybenchCompat from './compat/tinybench.js';
import * as mitataCompat from './compat/mitata.js';
import BenchmarkCompat from './compat/benchmark.js';

const PROTOCOL_VERSION = 2;
const UNROLL = 16;  // calls per pass of the timed loop (the host rounds invocations to a multiple)
const MAX_LINE = 64 * 1024 * 1024;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const hrtime = process.hrtime.bigint;

// CPU time of the measuring thread (Node >= 23.9: process.threadCpuUsage), else of the whole process
// (process.cpuUsage: V8's compiler and GC threads count too, so it may exceed the wall time, and it
// understates preemption, never invents it). Both report microseconds; nanoseconds here. The thread
// clock is used only when its step resolves an iteration (THREAD_STEP_MAX_NS, 1 % of a 2 ms
// iteration), and never on Linux: there it is getrusage(RUSAGE_THREAD), which reads the thread's
// run time as of its last scheduler update, not now — a reading lags by up to a tick and the next
// one catches up. Spinning 500 µs at a time on node 24 here, 80 of 589 intervals read more CPU time
// than wall time (up to 3.5 ms more), and the host rightly refuses such samples (the case failed).
// RUSAGE_SELF (process.cpuUsage) brings the calling thread up to date before it sums.
const THREAD_STEP_MAX_NS = 20_000;
const threadCpuUsage = typeof process.threadCpuUsage === 'function' && process.platform !== 'linux'
  ? process.threadCpuUsage.bind(process) : null;
let cpuUsage = process.cpuUsage.bind(process); // the clock chosen by chooseCpuClock (at hello)
function cpuNs() {
  const u = cpuUsage();
  return (u.user + u.system) * 1000;
}

// The smallest step the CPU clock takes (microseconds at best) in up to 20 steps or 2 ms of spinning
// (a fine clock steps hundreds of times in that; a tick-driven one once at best).
function cpuStepNs() {
  let best = Infinity;
  const deadline = hrtime() + 2_000_000n;
  for (let i = 0; i < 20 && hrtime() < deadline; i++) {
    const a = cpuNs();
    let b = cpuNs();
    while (b === a && hrtime() < deadline) b = cpuNs();
    if (b !== a) best = Math.min(best, b - a);
  }
  return Number.isFinite(best) ? Math.max(1, Math.round(best)) : Infinity;
}

// hello's cpu_clock in count mode: none, and cpuNs reads nothing (no clock noise in the counted loop).
function noCpuClock() {
  const zero = { user: 0, system: 0 };
  cpuUsage = () => zero;
  return null;
}

// hello's cpu_clock; sets the clock cpuNs reads.
function chooseCpuClock() {
  if (threadCpuUsage) {
    cpuUsage = threadCpuUsage;
    const step = cpuStepNs();
    if (step <= THREAD_STEP_MAX_NS) return { source: 'process.threadCpuUsage', scope: 'thread', resolution_ns: step };
  }
  cpuUsage = process.cpuUsage.bind(process);
  const step = cpuStepNs();
  return { source: 'process.cpuUsage', scope: 'process', resolution_ns: Number.isFinite(step) ? step : 1000 };
}

// Each timed loop leaves the CPU time of its iteration here (its return value stays the wall time).
const CPU_OUT = new Float64Array(1);

// V8 intrinsics to optimise our own timed loops at a known moment (see Case.tierUp). They are
// compiled while --allow-natives-syntax is briefly on, and the flag is turned off again so that
// benchmark code is parsed exactly as usual. null if this V8 refuses.
const NATIVES = (() => {
  try {
    v8.setFlagsFromString('--allow-natives-syntax');
    const prepare = new Function('f', '%PrepareFunctionForOptimization(f);');
    const optimize = new Function('f', '%OptimizeFunctionOnNextCall(f);');
    const dummy = function perflabDummy() {};
    prepare(dummy);  // compile both helpers now, while the flag is on
    optimize(dummy);
    return { prepare, optimize };
  } catch {
    return null;
  } finally {
    v8.setFlagsFromString('--no-allow-natives-syntax');
  }
})();

// ---------------------------------------------------------------------------------------------
// Count mode (PERFLAB_COUNT=1, `perflab run --measure instructions`): the host runs this worker under
// valgrind's callgrind, which counts only inside one native function seen by name, the *marker*, and
// writes one dump each time it returns. JIT code has no symbols, so the timed loop is entered through
// V8's C++ API: a precompiled vm.Script whose run calls `v8::Script::Run(v8::Local<v8::Context>)`,
// and whose only statement calls the function left in COUNT_SLOT. Nothing else in the worker runs a
// vm.Script, so each `run` request is exactly one marker call (a benchmark that runs a vm.Script
// itself adds dumps, and the host says so).
// ---------------------------------------------------------------------------------------------
const COUNT_MODE = process.env.PERFLAB_COUNT === '1';
const COUNT_SLOT = Symbol.for('perflab.countRegion');
const COUNT_SCRIPT = COUNT_MODE ? makeCountScript() : null;

function makeCountScript() {
  Object.defineProperty(globalThis, COUNT_SLOT, { value: null, writable: true, enumerable: false });
  const script = new vm.Script(`globalThis[Symbol.for('perflab.countRegion')]();`,
    { filename: 'perflab-count-region' });
  // Not run here: callgrind dumps at every return of the marker, so a run outside a `run` request
  // would be one dump too many. The host's first run request of a launch (a warmup) pays its first run.
  return script;
}

// `region()` inside exactly one marker call; its result, or what it threw.
function inCountRegion(region) {
  let result, error, threw = false;
  globalThis[COUNT_SLOT] = () => {
    try { result = region(); } catch (err) { error = err; threw = true; }
  };
  try {
    COUNT_SCRIPT.runInThisContext();
  } finally {
    globalThis[COUNT_SLOT] = null;
  }
  if (threw) throw error;
  return result;
}

// ---------------------------------------------------------------------------------------------
// The black hole: every call's result is stored into one of these, a distinct slot per unrolled
// call, so no call is dead code. Numbers go to a Float64Array (no boxing, no allocation), anything
// else to a plain array. Both are module-level objects that outlive the loop (and are read by the
// exported `sinkDigest()`), so V8 must perform every store, and therefore compute every result.
// ---------------------------------------------------------------------------------------------
const SINK_NUM = new Float64Array(UNROLL);
const SINK_ANY = new Array(UNROLL).fill(undefined);
const EMPTY_RESULT = {};  // what the overhead stage's empty function returns for object results

export function sinkDigest() {
  let x = 0;
  for (let i = 0; i < UNROLL; i++) x += SINK_NUM[i] + (SINK_ANY[i] === undefined ? 0 : 1);
  return x;
}

// Every loop is compiled from a unique source text: V8 caches `new Function` by source, and a cache
// hit would share type feedback between cases (the second case would run a polymorphic, slower loop).
let loopSeq = 0;

// A sync loop compiled fresh for each (case, target): each gets its own type feedback, so the
// workload loop and the overhead loop (same code, empty function) are optimised the same way.
function makeSyncLoop() {
  const store = (k) => `v = f(a); if (typeof v === 'number') N[${k}] = v; else S[${k}] = v;`;
  const body = Array.from({ length: UNROLL }, (_, k) => store(k)).join('\n      ');
  const src = `// perflab loop ${++loopSeq}
  return function perflabLoop(f, a, n) {
    const outer = Math.floor(n / ${UNROLL}), rest = n - outer * ${UNROLL};
    let v;
    const c0 = cpu();
    const t0 = hr();
    for (let i = 0; i < outer; i++) {
      ${body}
    }
    for (let j = 0; j < rest; j++) { v = f(a); if (typeof v === 'number') N[j] = v; else S[j] = v; }
    const t1 = hr();
    C[0] = cpu() - c0;
    return Number(t1 - t0);
  };`;
  return new Function('hr', 'N', 'S', 'cpu', 'C', src)(hrtime, SINK_NUM, SINK_ANY, cpuNs, CPU_OUT);
}

// Async benchmarks: every invocation is awaited before the next starts (we time completion, not
// promise creation). No unrolling: an await dwarfs the loop's own cost.
function makeAsyncLoop() {
  const src = `// perflab loop ${++loopSeq}
  return async function perflabAsyncLoop(f, a, n) {
    const c0 = cpu();
    const t0 = hr();
    for (let i = 0; i < n; i++) { S[i & ${UNROLL - 1}] = await f(a); }
    const t1 = hr();
    C[0] = cpu() - c0;
    return Number(t1 - t0);
  };`;
  return new Function('hr', 'S', 'cpu', 'C', src)(hrtime, SINK_ANY, cpuNs, CPU_OUT);
}

// ---------------------------------------------------------------------------------------------
// Errors: report the runtime's own text and the innermost user frame.
// ---------------------------------------------------------------------------------------------
class ExitCalled extends Error {
  constructor(code) {
    super(`benchmark called process.exit(${code ?? ''})`);
    this.name = 'ProcessExitError';
  }
}

function errorMessage(err) {
  if (err instanceof StrayError) return err.message;
  if (err instanceof Error) {
    const name = err.code ? `${err.name} [${err.code}]` : err.name;
    return err.message ? `${name}: ${err.message}` : name;
  }
  return `thrown value: ${safeString(err)}`;
}

function safeString(x) {
  try { return typeof x === 'string' ? x : JSON.stringify(x) ?? String(x); } catch { return String(x); }
}

const FRAME = /(?:\(|\bat\s|^)((?:file:\/\/)?\/[^():\n]+):(\d+)(?::(\d+))?\)?\s*$/;

function toPath(p) {
  return p.startsWith('file://') ? fileURLToPath(p) : p;
}

/** The innermost stack frame outside the worker (and Node's internals): where the user's code failed. */
function userFrame(stack, preferFile = null) {
  const lines = String(stack ?? '').split('\n');
  let first = null;
  for (const line of lines) {
    const m = FRAME.exec(line.trim());
    if (!m) continue;
    let file;
    try { file = toPath(m[1]); } catch { continue; }
    if (file.startsWith(HERE + path.sep) || file.startsWith('node:')) continue;
    const frame = { file, line: Number(m[2]) };
    if (preferFile && file === preferFile) return frame;
    first ??= frame;
  }
  return first;
}

function errorDoc(kind, err) {
  const doc = { kind, message: errorMessage(err) };
  if (err instanceof Error) {
    doc.traceback = String(err.stack ?? '');
    const frame = userFrame(err.stack);
    if (frame) { doc.file = frame.file; doc.line = frame.line; }
  }
  return doc;
}

// Anything thrown outside our awaits (a timer callback, a forgotten promise) is charged to the
// request being served, or the next setup/run/teardown if it happened in between, instead of killing
// the worker or vanishing silently.
let stray = null;
process.on('uncaughtException', (err) => { stray ??= err; });
process.on('unhandledRejection', (err) => { stray ??= err; });

class StrayError extends Error {}

function throwStray() {
  if (stray === null) return;
  const err = stray;
  stray = null;
  const wrapped = new StrayError(`uncaught in benchmark code (timer, event or unawaited promise): ${errorMessage(err)}`);
  wrapped.cause = err;
  wrapped.stack = err instanceof Error ? err.stack : wrapped.stack;
  throw wrapped;
}

// A benchmark calling process.exit() fails itself, not the worker.
const realExit = process.exit.bind(process);
process.exit = (code) => { throw new ExitCalled(code); };

// ---------------------------------------------------------------------------------------------
// Loading benchmark files
// ---------------------------------------------------------------------------------------------
function fileStem(file) {
  return path.basename(file).replace(/\.[cm]?[jt]s$/, '').replace(/\.bench$/, '');
}

function display(values) {
  const shown = values.map((v) => (typeof v === 'string' ? v
    : v !== null && typeof v === 'object' ? safeString(v) : String(v)));
  return new Set(shown).size === shown.length ? shown : values.map((v) => safeString(v) + '');
}

async function loadFile(file) {
  registry.currentFile = file;
  const before = registry.benchmarks.length;
  try {
    await import(pathToFileURL(file).href);
    return { found: registry.benchmarks.slice(before), error: null };
  } catch (err) {
    registry.benchmarks.length = before;  // a file that fails loads nothing
    return { found: [], error: loadError(file, err) };
  } finally {
    registry.currentFile = null;
  }
}

function loadError(file, err) {
  const doc = { file, line: 0, kind: 'load', message: errorMessage(err) };
  if (err instanceof Error) doc.traceback = String(err.stack ?? '');
  if (err?.code === 'ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX') {
    doc.message += ` (Node only strips types; for enums/namespaces give the runtime a flag: `
      + `node${process.versions.node.split('.')[0]}:--experimental-transform-types)`;
  }
  // TypeScript errors (Node's type stripping, or our compiler hook) start the stack with path:line.
  const head = /^((?:file:\/\/)?\/[^\n]*?):(\d+)/.exec(String(err?.stack ?? ''));
  if (head) {
    doc.file = toPath(head[1]); doc.line = Number(head[2]);
    return doc;
  }
  const imported = importLine(file, err);
  if (imported) { doc.line = imported; return doc; }
  if (err?.name === 'SyntaxError' && /\.[cm]?js$/.test(file)) {
    // V8 keeps the position of an ES module's syntax error out of err.stack; ask `node --check`.
    const line = syntaxErrorLine(file);
    if (line) { doc.line = line; return doc; }
  }
  const frame = userFrame(err?.stack, file);
  if (frame) { doc.file = frame.file; doc.line = frame.line; }
  return doc;
}

// A failing import (a module not found, a name it does not export) is reported by Node without a
// position in the importing file: the line of the import that names it.
function importLine(file, err) {
  const text = String(err?.message ?? '');
  const missing = /Cannot find (?:module|package) '([^']+)'/.exec(text);
  const noExport = /requested module '([^']+)' does not provide an export named '([^']+)'/.exec(text);
  if (!missing && !noExport) return 0;
  let key = missing ? missing[1] : noExport[1];
  if (key.startsWith('/') || key.startsWith('file:')) key = path.basename(key).replace(/\.[cm]?[jt]s$/, '');
  try {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const i = lines.findIndex((l) => /\b(?:import|require|from)\b/.test(l) && l.includes(key)
      && (!noExport || l.includes(noExport[2]) || lines.length < 2));
    const j = i >= 0 ? i : lines.findIndex((l) => /\b(?:import|require|from)\b/.test(l) && l.includes(key));
    return j >= 0 ? j + 1 : 0;
  } catch {
    return 0;
  }
}

function syntaxErrorLine(file) {
  try {
    const source = fs.readFileSync(file);
    const r = spawnSync(process.execPath, ['--input-type=module', '--check'], { input: source, timeout: 20000 });
    const m = /\[stdin\]:(\d+)/.exec(String(r.stderr));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function describe(b) {
  return {
    id: b.id, name: b.name, group: b.group, file: b.file, line: b.line, baseline: b.baseline,
    categories: b.categories, ops_per_invoke: b.ops,
    params: b.axes.map(([name, values]) => ({ name, values: display(values) })),
    description: b.description, meta: b.meta,
    // per-iteration hooks: the host then runs one invocation per iteration
    iteration_setup: !!(b.iterationSetup || b.iterationTeardown),
  };
}

// ---------------------------------------------------------------------------------------------
// One case: a benchmark with its parameter values, set up.
// ---------------------------------------------------------------------------------------------
class Case {
  constructor(bench, values, state) {
    this.bench = bench;
    this.values = values;
    this.state = state;  // what setup returned: the hooks and teardown receive it
    // the timed function and its argument: the benchmark's own and its state, or (compatibility
    // layers' `perCase` benchmarks) those this case's setup made: { fn, arg }
    this.fn = bench.perCase ? state?.fn : bench.fn;
    this.arg = bench.perCase ? state?.arg : state;
    if (typeof this.fn !== 'function') throw new TypeError(`${bench.id}: setup made no function to time`);
    this.isAsync = bench.async ?? (this.fn.constructor?.name === 'AsyncFunction' ? true : null);
    this.loops = null;
  }

  // One probe call, outside any timed region, the first time the case runs: it tells whether the
  // benchmark returns promises (unless declared or an async function) and what kind of value it
  // returns, so the empty function of the overhead stage returns the same kind and takes the same
  // path through the black hole. Then both loops are brought to their optimised tier.
  async resolveKind() {
    if (this.loops !== null) return;
    const { iterationSetup, iterationTeardown } = this.bench;
    if (iterationSetup) await iterationSetup(this.state, this.values);
    let r = this.fn(this.arg);
    const thenable = r !== null && (typeof r === 'object' || typeof r === 'function') && typeof r.then === 'function';
    if (thenable) r = await r;
    if (iterationTeardown) await iterationTeardown(this.state, this.values);
    this.isAsync ??= thenable;
    const returns = typeof r === 'number' ? '0.5' : r === undefined ? 'undefined' : 'K';
    const make = this.isAsync ? makeAsyncLoop : makeSyncLoop;
    const empty = new Function('K', `// perflab empty ${++loopSeq}
      return ${this.isAsync ? 'async ' : ''}function perflabEmpty(_a) { return ${returns}; };`)(EMPTY_RESULT);
    const loops = { workload: make(), overhead: make(), empty };
    await this.tierUp(loops.overhead, empty);
    // A benchmark with per-iteration hooks may consume its state: no extra calls outside them.
    if (!iterationSetup && !iterationTeardown) await this.tierUp(loops.workload, this.fn);
    this.loops = loops;
  }

  // V8 would optimise a loop on its own, but only after a concurrent TurboFan compile that takes
  // several iterations on a busy machine: meanwhile the unoptimised loop calls the benchmark without
  // inlining, a plateau that looks stable (and, for the overhead loop, is simply wrong). So each loop
  // runs untimed for a few passes (type feedback) and is then optimised at once, before any stage.
  async tierUp(loop, fn) {
    const call = async (n) => {
      const t = loop(fn, this.arg, n);
      return this.isAsync ? await t : t;
    };
    // Count mode: the same tier-up every launch, whatever the clock says (valgrind slows it 50×).
    // ≥ 0.1 ms a call: the loop's own tier cannot matter; spare the calls. One call tells: a pass
    // of UNROLL calls first was 16 untimed calls of a 0.25-1 s PingPong before its first timed one,
    // and the request outlasted its 10 s reply time-out (node18, every quiet main job).
    if (!COUNT_MODE && await call(1) > 100_000) return;
    const once = await call(UNROLL);
    const perCall = once / UNROLL;
    if (perCall > 100_000 && !COUNT_MODE) return;
    // about 5 ms a pass, in whole unrolled passes
    const calls = COUNT_MODE ? UNROLL * 4
      : UNROLL * Math.max(1, Math.min(64, Math.floor(5e6 / Math.max(perCall, 1) / UNROLL)));
    if (NATIVES) {
      NATIVES.prepare(loop);
      for (let pass = 0; pass < 3; pass++) await call(calls);
      NATIVES.optimize(loop);
      await call(UNROLL);  // compiles now, synchronously
      return;
    }
    const start = performance.now();  // no natives: give V8's concurrent compiler time instead
    // (count mode: a fixed number of passes, and --single-threaded V8 compiles on the spot)
    const passes = COUNT_MODE ? 64 : 1000;
    for (let pass = 0; pass < passes && (COUNT_MODE || performance.now() - start < 30); pass++) await call(calls);
  }

  // `iterations` timed iterations of the stage's loop. With `withOverhead` (workload only) each is
  // followed by one iteration of the overhead loop (preceded, with `overheadFirst`: the host puts
  // each side second of a request alike), outside the per-iteration hooks; its times are
  // returned in `overheadNs` (null otherwise). The CPU time of each iteration goes to `cpuNs` and
  // `overheadCpuNs`.
  async timeIterations(stage, invocations, iterations, withOverhead = false, overheadFirst = false) {
    await this.resolveKind();
    const overhead = stage === 'overhead';
    const loop = overhead ? this.loops.overhead : this.loops.workload;
    const fn = overhead ? this.loops.empty : this.fn;
    const { iterationSetup, iterationTeardown } = this.bench;
    const ns = new Array(iterations);
    const cpuNs = new Array(iterations);
    const overheadNs = withOverhead ? new Array(iterations) : null;
    const overheadCpuNs = withOverhead ? new Array(iterations) : null;
    const empty = async (i) => {
      const e = this.loops.overhead(this.loops.empty, this.arg, invocations);
      overheadNs[i] = this.isAsync ? await e : e;
      overheadCpuNs[i] = Math.max(0, Math.round(CPU_OUT[0]));
    };
    for (let i = 0; i < iterations; i++) {
      if (overheadNs && overheadFirst) await empty(i);
      if (iterationSetup) await iterationSetup(this.state, this.values);
      const t = loop(fn, this.arg, invocations);
      ns[i] = this.isAsync ? await t : t;
      cpuNs[i] = Math.max(0, Math.round(CPU_OUT[0]));
      if (iterationTeardown) await iterationTeardown(this.state, this.values);
      if (overheadNs && !overheadFirst) await empty(i);
    }
    return { ns, cpuNs, overheadNs, overheadCpuNs };
  }

  // Count mode: the same iterations, all inside one marker call, so they must run synchronously (an
  // await would leave the marker with the loop unfinished): async benchmarks and hooks cannot be counted.
  async countIterations(stage, invocations, iterations) {
    await this.resolveKind();
    if (this.isAsync) throw new Error('async benchmarks cannot be counted under valgrind: the timed loop awaits, which leaves the native marker function the count is taken in');
    const loop = stage === 'overhead' ? this.loops.overhead : this.loops.workload;
    const fn = stage === 'overhead' ? this.loops.empty : this.fn;
    const { iterationSetup, iterationTeardown } = this.bench;
    const hook = (h) => {
      const r = h(this.state, this.values);
      if (r !== null && typeof r === 'object' && typeof r.then === 'function') {
        throw new Error('async iteration hooks cannot be counted under valgrind: counting needs the whole loop synchronous');
      }
    };
    const ns = new Array(iterations);
    const cpuNs = new Array(iterations);
    inCountRegion(() => {
      for (let i = 0; i < iterations; i++) {
        if (iterationSetup) hook(iterationSetup);
        ns[i] = loop(fn, this.arg, invocations);
        cpuNs[i] = Math.max(0, Math.round(CPU_OUT[0]));
        if (iterationTeardown) hook(iterationTeardown);
      }
    });
    return { ns, cpuNs, overheadNs: null, overheadCpuNs: null };
  }
}

// ---------------------------------------------------------------------------------------------
// Diagnose: bytes allocated and GC counts over the workload loop, via v8.GCProfiler (never on
// during timed stages). Bytes allocated = growth of the used heap + what each GC freed, minus the
// same figure for the overhead loop (clock reads, the loop itself).
// ---------------------------------------------------------------------------------------------
const HAS_GC_PROFILER = typeof v8.GCProfiler === 'function';
const YOUNG = new Set(['Scavenge', 'MinorMarkSweep', 'MinorMarkCompact']);
const OLD = new Set(['MarkSweepCompact']);

async function allocatedDuring(run) {
  const profiler = new v8.GCProfiler();
  const before = v8.getHeapStatistics().used_heap_size;
  profiler.start();
  await run();
  const result = profiler.stop();
  const after = v8.getHeapStatistics().used_heap_size;
  let freed = 0;
  const gc = [0, 0];
  for (const s of result?.statistics ?? []) {
    freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
    if (YOUNG.has(s.gcType)) gc[0]++;
    else if (OLD.has(s.gcType)) gc[1]++;
  }
  return { bytes: after - before + freed, gc };
}

async function diagnose(c, invocations, iterations) {
  const out = { alloc_bytes: null, allocs: null, gc: null, code_size: null, notes: [] };
  if (!HAS_GC_PROFILER) {
    out.notes.push(`v8.GCProfiler is not available in Node ${process.versions.node}`);
    return out;
  }
  await c.resolveKind();
  const runWith = (stage) => async () => { await c.timeIterations(stage, invocations, iterations); };
  const empty = await allocatedDuring(runWith('overhead'));
  const work = await allocatedDuring(runWith('workload'));
  out.alloc_bytes = Math.max(0, Math.round(work.bytes - empty.bytes));
  out.gc = work.gc;
  out.notes.push('alloc: V8 used-heap growth plus bytes freed by each GC (v8.GCProfiler), minus the empty loop; '
    + 'gc: [young (scavenge/minor), old (mark-sweep-compact)] collections');
  return out;
}

// ---------------------------------------------------------------------------------------------
// Protocol
// ---------------------------------------------------------------------------------------------
class ProtocolFieldError extends Error {}

function field(msg, name, kind) {
  if (!(name in msg)) throw new ProtocolFieldError(`request '${msg.type}' lacks field '${name}'`);
  const v = msg[name];
  const ok = kind === 'int' ? Number.isInteger(v) : kind === 'array' ? Array.isArray(v) : typeof v === kind;
  if (!ok) throw new ProtocolFieldError(`field '${name}' of '${msg.type}' must be ${kind}`);
  return v;
}

function clockResolutionNs() {
  let best = Infinity;
  for (let i = 0; i < 2000; i++) {
    const a = hrtime();
    let b = hrtime();
    while (b === a) b = hrtime();
    const d = Number(b - a);
    if (d < best) best = d;
  }
  return Math.max(1, best);
}

class Worker {
  constructor(socket) {
    this.socket = socket;
    this.benchmarks = new Map();
    this.case = null;
  }

  send(msg) {
    this.socket.write(JSON.stringify({ v: PROTOCOL_VERSION, ...msg }) + '\n');
  }

  error(id, kind, message, extra = {}) {
    this.send({ id, type: 'error', error: { kind, message, ...extra } });
  }

  hello() {
    this.send({
      type: 'hello', token: process.env.PERFLAB_TOKEN ?? '', language: 'node',
      runtime: { name: 'Node.js', version: process.versions.node, executable: process.execPath,
        v8: process.versions.v8, arch: process.arch, platform: process.platform },
      clock: { resolution_ns: clockResolutionNs(), source: 'process.hrtime.bigint' },
      // count mode: no CPU clock (under valgrind a thread's CPU time is valgrind's, not the program's)
      cpu_clock: COUNT_MODE ? noCpuClock() : chooseCpuClock(),
      capabilities: ['with_overhead', 'overhead_first', ...(HAS_GC_PROFILER ? ['alloc', 'gc'] : [])],
      unroll: UNROLL, pid: process.pid,
    });
  }

  // Returns 'exit' after bye or a version error.
  async handle(line) {
    let msg;
    try {
      msg = JSON.parse(line);
      if (msg === null || typeof msg !== 'object' || Array.isArray(msg)) throw new Error('not a JSON object');
    } catch (err) {
      this.error(null, 'protocol', `malformed request: ${err.message}`);
      return null;
    }
    const id = msg.id ?? null;
    if (msg.v !== PROTOCOL_VERSION) {
      this.error(id, 'version', `this worker speaks protocol v${PROTOCOL_VERSION}, got v${safeString(msg.v)}`);
      return 'exit';
    }
    const handlers = { load: this.onLoad, setup: this.onSetup, run: this.onRun, teardown: this.onTeardown,
      bye: this.onBye };
    const handler = typeof msg.type === 'string' && Object.hasOwn(handlers, msg.type) ? handlers[msg.type] : null;
    if (!handler) {
      this.error(id, 'protocol', `unknown request type ${safeString(msg.type)}`);
      return null;
    }
    try {
      return await handler.call(this, id, msg);
    } catch (err) {
      if (err instanceof ProtocolFieldError) this.error(id, 'protocol', err.message);
      else this.send({ id, type: 'error', error: errorDoc('exception', err) });
      return null;
    }
  }

  async onLoad(id, msg) {
    const paths = field(msg, 'paths', 'array');
    const benchmarks = [];
    const errors = [];
    for (const p of paths) {
      const file = path.resolve(String(p));
      const { found, error } = await loadFile(file);
      if (error) errors.push(error);
      for (const entry of found) {
        const b = this.register(entry, file, errors);
        if (!b) continue;
        try {
          benchmarks.push(describe(b));
        } catch (err) { // a parameter value whose toString throws: this benchmark fails alone
          let why;
          try { why = `${err?.name ?? 'Error'}: ${err?.message ?? err}`; } catch { why = 'Error'; }
          errors.push({ file: b.file, line: b.line, kind: 'load',
            message: `${b.name}: cannot describe its parameters (${why})`,
            benchmark: { id: b.id, name: b.name, group: b.group } });
        }
      }
    }
    this.send({ id, type: 'loaded', benchmarks, errors });
  }

  register(entry, file, errors) {
    const stem = fileStem(file);
    const group = entry.group || stem;
    const id = entry.group ? `${stem}.${entry.group}.${entry.name}` : `${stem}.${entry.name}`;
    const frame = userFrame(entry.site, file) ?? { file, line: 0 };
    const fail = (message) => { errors.push({ file, line: frame.line, kind: 'load', message: `${id}: ${message}` }); };
    if (entry.removed) return null;  // declared, then removed (tinybench's bench.remove)
    if (entry.unsupported) {  // a compatibility layer met an API it cannot honour: this benchmark fails alone
      errors.push({ file: frame.file, line: frame.line, kind: 'load', message: `${entry.name}: ${entry.unsupported}`,
        benchmark: { id, name: entry.name, group } });
      return null;
    }
    if (this.benchmarks.has(id)) return fail('duplicate benchmark id'), null;
    const axes = [];
    for (const [name, values] of Object.entries(entry.params)) {
      if (!Array.isArray(values) || values.length === 0) return fail(`parameter '${name}' needs a non-empty array of values`), null;
      axes.push([name, values]);
    }
    const b = { ...entry, id, group, file, line: frame.file === file ? frame.line : 0, axes };
    this.benchmarks.set(id, b);
    return b;
  }

  async onSetup(id, msg) {
    throwStray();
    const bid = field(msg, 'benchmark', 'string');
    const b = this.benchmarks.get(bid);
    if (!b) return this.error(id, 'not_found', `no benchmark with id '${bid}'`);
    const indices = msg.params ?? {};
    const values = {};
    for (const [name, vals] of b.axes) {
      const i = indices[name];
      if (!Number.isInteger(i) || i < 0 || i >= vals.length) {
        return this.error(id, 'not_found', `${bid}: parameter '${name}' has no value #${safeString(i)}`);
      }
      values[name] = vals[i];
    }
    if (this.case) await this.teardownCase();  // one case at a time
    let state = values;
    try {
      if (b.setup) {
        const r = await b.setup(values);
        if (r !== undefined) state = r;
      }
    } catch (err) {
      const doc = errorDoc('exception', err);
      doc.message = `setup failed: ${doc.message}`;
      return this.send({ id, type: 'error', error: doc });
    }
    this.case = new Case(b, values, state);
    if (typeof globalThis.gc === 'function') globalThis.gc();
    this.send({ id, type: 'ready' });
  }

  async onRun(id, msg) {
    if (!this.case) return this.error(id, 'state', 'run before setup');
    throwStray();
    const stage = field(msg, 'stage', 'string');
    const invocations = field(msg, 'invocations', 'int');
    const iterations = field(msg, 'iterations', 'int');
    if (invocations < 1 || iterations < 1) return this.error(id, 'protocol', 'invocations and iterations must be >= 1');
    const withOverhead = msg.with_overhead === true;
    if (withOverhead && stage !== 'workload') {
      return this.error(id, 'protocol', 'with_overhead is for the workload stage only');
    }
    if (stage === 'diagnose') {
      const out = await diagnose(this.case, invocations, iterations);
      throwStray();
      return this.send({ id, type: 'diagnostics', invocations, iterations, ...out });
    }
    if (!['pilot', 'warmup', 'overhead', 'workload'].includes(stage)) {
      return this.error(id, 'protocol', `unknown stage '${stage}'`);
    }
    if (COUNT_MODE && withOverhead) {
      return this.error(id, 'protocol', 'with_overhead is not available in count mode (PERFLAB_COUNT=1)');
    }
    const { ns, cpuNs: cpu, overheadNs, overheadCpuNs } = COUNT_MODE
      ? await this.case.countIterations(stage, invocations, iterations)
      : await this.case.timeIterations(stage, invocations, iterations, withOverhead, msg.overhead_first === true);
    throwStray();
    this.send({ id, type: 'samples', stage, invocations, ns, ...(!COUNT_MODE && { cpu_ns: cpu }),
      ...(overheadNs && { overhead_ns: overheadNs, overhead_cpu_ns: overheadCpuNs }) });
  }

  async teardownCase() {
    const c = this.case;
    this.case = null;
    if (c?.bench.teardown) await c.bench.teardown(c.state, c.values);
  }

  async onTeardown(id) {
    try {
      await this.teardownCase();
    } catch (err) {
      const doc = errorDoc('exception', err);
      doc.message = `teardown failed: ${doc.message}`;
      return this.send({ id, type: 'error', error: doc });
    }
    throwStray();
    this.send({ id, type: 'done' });
  }

  async onBye(id) {
    this.send({ id, type: 'done' });
    return 'exit';
  }
}

// What `require('tinybench' | 'mitata' | 'benchmark')` gives a CommonJS benchmark file: perflab's
// compatibility layers (compat/), the same module instances `import` reaches through hooks.js.
const COMPAT_REQUIRE = {
  tinybench: { ...tinybenchCompat },
  mitata: { ...mitataCompat },
  benchmark: BenchmarkCompat,
};

function registerCompatRequire() {
  const Module = nodeModule.default ?? nodeModule.Module;
  const load = Module?._load;
  if (typeof load !== 'function') return;
  Module._load = function perflabCompatLoad(request, parent, isMain) {
    if (Object.hasOwn(COMPAT_REQUIRE, request)) return COMPAT_REQUIRE[request];
    return load.apply(this, arguments);
  };
}

// Make `import 'perflab'` and TypeScript work inside benchmark files (see hooks.js).
function registerHooks() {
  registerCompatRequire();
  if (typeof nodeModule.register !== 'function') {
    process.stderr.write(`perflab worker: Node ${process.versions.node} lacks module.register(); `
      + "benchmark files cannot import 'perflab' (Node >= 18.19 or >= 20.6 is needed)\n");
    return;
  }
  nodeModule.register('./hooks.js', import.meta.url, {
    data: { typescript: process.env.PERFLAB_TYPESCRIPT || null },
  });
}

function main() {
  const address = process.env.PERFLAB_CONNECT;
  if (!address) {
    process.stderr.write('perflab worker: PERFLAB_CONNECT is not set; this program is started by `perflab run`, not by hand\n');
    return realExit(2);
  }
  registerHooks();
  const cut = address.lastIndexOf(':');
  const socket = net.connect({ host: address.slice(0, cut), port: Number(address.slice(cut + 1)) });
  socket.setNoDelay(true);
  const worker = new Worker(socket);
  socket.on('connect', () => worker.hello());
  socket.on('error', (err) => {
    process.stderr.write(`perflab worker: socket error: ${err.message}\n`);
    realExit(3);
  });

  // Requests are served strictly one after another: a queue of complete lines.
  let buffer = '';
  const queue = [];
  let busy = false;
  const drain = async () => {
    if (busy) return;
    busy = true;
    while (queue.length) {
      const outcome = await worker.handle(queue.shift());
      if (outcome === 'exit') {
        socket.end(() => realExit(0));
        return;
      }
    }
    busy = false;
  };
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => {
    buffer += chunk;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      queue.push(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
    if (buffer.length > MAX_LINE) {
      worker.error(null, 'protocol', 'request line longer than 64 MiB');
      buffer = '';
    }
    drain();
  });
  socket.on('end', () => realExit(0));  // the host went away: nothing left to do
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
