// tinybench (v2 and v3 API) on perflab: `import { Bench } from 'tinybench'` in a benchmark file
// resolves here inside perflab's worker. `bench.add()` declares a perflab benchmark; `run()` and
// `warmup()` resolve at once (perflab measures afterwards, in its own stages, on the host's plan), so
// `task.result` is a valid result whose figures are NaN and whose `note` says where the real ones are.
//
//   Bench({ time, iterations, warmupTime, warmupIterations, warmup, throws, now, signal, name })
//     accepted; perflab's job decides how long and how often (its table says so). `setup`/`teardown`
//     (v2) run once per case around it, like `beforeAll`/`afterAll`.
//   add(name, fn, { beforeAll, beforeEach, afterEach, afterAll })
//     beforeAll/afterAll: once per case; beforeEach/afterEach: around every timed iteration, which
//     makes each iteration one call (as perflab's own iterationSetup does).
//   concurrency ('task' | 'bench'): not supported; those tasks fail alone saying so.
import { declare, callSite, callHook, NOT_MEASURED_HERE } from './declare.js';

const NAN_STATS = () => ({
  mean: NaN, min: NaN, max: NaN, sd: NaN, sem: NaN, moe: NaN, rme: NaN, variance: NaN, df: 0,
  critical: NaN, mad: NaN, aad: NaN, p50: NaN, p75: NaN, p99: NaN, p995: NaN, p999: NaN, samples: [],
  samplesCount: 0,
});

function emptyResult() {
  const s = NAN_STATS();
  return {
    ...s, totalTime: 0, hz: NaN, period: NaN, latency: NAN_STATS(), throughput: NAN_STATS(),
    runtime: 'node', runtimeVersion: process.versions.node, state: 'completed', error: undefined,
    note: NOT_MEASURED_HERE,
  };
}

class TinyEvent extends Event {
  constructor(type, task) {
    super(type);
    this.task = task;
  }
}

export class Task extends EventTarget {
  constructor(bench, name, fn, fnOpts = {}) {
    super();
    this.bench = bench;
    this.name = name;
    this.fn = fn;
    this.opts = fnOpts;
    this.fnOpts = fnOpts;
    this.runs = 0;
    this.result = undefined;
  }

  async run() { this.result = emptyResult(); return this; }
  runSync() { this.result = emptyResult(); return this; }
  async warmup() {}
  warmupSync() {}
  reset() { this.runs = 0; this.result = undefined; }
}

const UNSUPPORTED_OPTIONS = { concurrency: 'Bench option concurrency', threshold: null };

export class Bench extends EventTarget {
  constructor(options = {}) {
    super();
    this.opts = { ...options };
    this.options = this.opts;
    this.name = options.name;
    for (const k of ['time', 'iterations', 'warmupTime', 'warmupIterations', 'throws', 'signal', 'now']) {
      this[k] = options[k];
    }
    this.concurrency = options.concurrency ?? null;
    this.threshold = options.threshold ?? Infinity;
    this._tasks = new Map();
    this._entries = new Map();
  }

  get tasks() { return [...this._tasks.values()]; }
  get results() { return this.tasks.map((t) => t.result); }
  get todos() { return []; }
  getTask(name) { return this._tasks.get(name); }

  add(name, fn, fnOpts = {}) {
    const task = new Task(this, name, fn, fnOpts ?? {});
    this._tasks.set(name, task);
    const bench = this;
    const o = fnOpts ?? {};
    const unsupported = this.concurrency
      ? `tinybench ${UNSUPPORTED_OPTIONS.concurrency} '${this.concurrency}' is not supported by perflab `
        + '(its calls would overlap; perflab times one call at a time)'
      : null;
    const hasEach = typeof o.beforeEach === 'function' || typeof o.afterEach === 'function';
    this._entries.set(name, declare(name, () => fn.call(task), {
      group: this.name || null,
      async: fn?.constructor?.name === 'AsyncFunction' ? true : null,
      unsupported,
      site: callSite(),
      setup: async () => {
        await callHook(bench.opts.setup, bench, task, 'run');
        await callHook(o.beforeAll, task, 'run');
        return task;
      },
      teardown: async () => {
        await callHook(o.afterAll, task, 'run');
        await callHook(bench.opts.teardown, bench, task, 'run');
      },
      iterationSetup: hasEach ? async () => { await callHook(o.beforeEach, task, 'run'); } : null,
      iterationTeardown: hasEach ? async () => { await callHook(o.afterEach, task, 'run'); } : null,
    }));
    // tinybench calls fn with the task as `this`; a plain function that does not need it is timed
    // directly (no wrapper call in the timed loop)
    if (typeof fn === 'function' && !/\bthis\b/.test(Function.prototype.toString.call(fn))) {
      this._entries.get(name).fn = fn;
    }
    return this;
  }

  remove(name) {
    this._tasks.delete(name);
    const entry = this._entries.get(name);
    if (entry) entry.removed = true;  // the worker does not register removed entries
    this._entries.delete(name);
    return this;
  }

  async warmup() { this.dispatchEvent(new TinyEvent('warmup')); }
  warmupSync() {}

  async run() { return this.runSync(); }

  runSync() {
    this.dispatchEvent(new TinyEvent('start'));
    for (const task of this.tasks) {
      task.result = emptyResult();
      const e = new TinyEvent('cycle', task);
      this.dispatchEvent(e);
      task.dispatchEvent(new TinyEvent('cycle', task));
      task.dispatchEvent(new TinyEvent('complete', task));
    }
    this.dispatchEvent(new TinyEvent('complete'));
    return this.tasks;
  }

  reset() { for (const t of this.tasks) t.reset(); this.dispatchEvent(new TinyEvent('reset')); }

  table(convert) {
    return this.tasks.map((task) => (typeof convert === 'function' ? convert(task)
      : { 'Task name': task.name, 'Latency avg (ns)': 'n/a', 'Throughput avg (ops/s)': 'n/a',
        Samples: 0, Note: NOT_MEASURED_HERE }));
  }
}

export const BenchEvent = TinyEvent;
export function now() { return performance.now(); }
export function performanceNow() { return performance.now(); }
export function hrtimeNow() { return Number(process.hrtime.bigint()) / 1e6; }
export function nToMs(ns) { return ns / 1e6; }
export default { Bench, Task, BenchEvent, now, performanceNow, hrtimeNow, nToMs };
