// mitata (v0.1 and v1 API) on perflab: `import { bench, group, run } from 'mitata'` in a benchmark
// file resolves here inside perflab's worker. Each `bench()` declares a perflab benchmark; `run()`
// resolves at once with no figures (perflab measures afterwards, in its own stages).
//
//   bench(name, fn) / bench(fn)             plain, async, or generator benchmarks (v1):
//     function* (state) { const n = state.get('n'); ...setup...; yield () => work(n); ...teardown... }
//     the code before `yield` runs once per case (untimed), the yielded function is timed, the code
//     after it runs at teardown. Yielding { [0]() {...}, bench(x) {...} } (computed parameters) makes
//     the [k]() calls per-iteration setup (each iteration one call).
//   .args(name, values) / .args(values) / .range(name, a, b, mul = 8) / .dense_range(name, a, b, step = 1)
//                                           parameters: perflab's Params columns, one case per value
//   .baseline(), .name(n), .gc(), .highlight(), .compact()   (the display ones are accepted, ignored)
//   baseline(name, fn) (v0.1)               a baseline benchmark
//   group(name?, fn), group({ name }, fn)   the benchmark group (rows, baseline, Ratio)
//   summary, barplot, boxplot, lineplot, compact (fn)   run fn; the plots are mitata's display
//   do_not_optimize(x)                      keeps x alive (perflab sinks return values too)
//   run(opts)                               resolves to { benchmarks: [], ... } at once
//   measure()                               not supported: it measures on the spot (throws, naming it)
import { declare, callSite, NOT_MEASURED_HERE } from './declare.js';
import { _registry as registry } from '../index.js';

const GeneratorFunction = Object.getPrototypeOf(function* () {}).constructor;
const AsyncGeneratorFunction = Object.getPrototypeOf(async function* () {}).constructor;

class B {
  constructor(entry, fn) {
    this._entry = entry;
    this.f = fn;
    this._axes = {};
  }

  name(n) { if (typeof n === 'string' && n) this._entry.name = n; return this; }
  baseline(on = true) { this._entry.baseline = !!on; return this; }
  gc() { return this; }
  highlight() { return this; }
  compact() { return this; }

  args(name, values) {
    if (values === undefined) { values = name; name = 'x'; }
    if (name !== null && typeof name === 'object' && !Array.isArray(name)) {
      for (const [k, v] of Object.entries(name)) this.args(k, v);
      return this;
    }
    if (!Array.isArray(values)) values = [values];
    this._entry.params = { ...this._entry.params, [name]: values };
    return this;
  }

  range(name, start, end, multiplier = 8) {
    const values = [];
    for (let v = start; v <= end; v *= multiplier) { values.push(v); if (multiplier <= 1) break; }
    if (values[values.length - 1] !== end && end > values[values.length - 1]) values.push(end);
    return this.args(name, values);
  }

  dense_range(name, start, end, step = 1) {
    const values = [];
    for (let v = start; v <= end; v += step) values.push(v);
    return this.args(name, values);
  }
}

// A generator benchmark: each case runs the generator to its first yield (setup), times what it
// yielded, and finishes it at teardown.
function generatorBench(gen, site) {
  const setup = async (values) => {
    const state = { get: (k) => values[k], ...values };
    const it = gen(state);
    let step = it.next();
    if (step && typeof step.then === 'function') step = await step;
    const yielded = step.value;
    if (typeof yielded === 'function') return { fn: yielded, arg: undefined, it };
    if (yielded && typeof yielded === 'object' && typeof yielded.bench === 'function') {
      const computed = Object.keys(yielded).filter((k) => /^\d+$/.test(k)).sort((a, b) => a - b);
      const args = computed.map((k) => yielded[k]());  // made again before each iteration when hooked
      const arg = { args };
      const fn = computed.length === 0 ? () => yielded.bench()
        : computed.length === 1 ? (a) => yielded.bench(a.args[0]) : (a) => yielded.bench(...a.args);
      return { fn, arg, it, computed: computed.map((k) => yielded[k]), args };
    }
    throw new TypeError(`mitata: a generator benchmark must yield a function or { bench() {...} } (${where(site)})`);
  };
  const teardown = async (state) => {
    const r = state?.it?.next?.();
    if (r && typeof r.then === 'function') await r;
  };
  return { setup, teardown };
}

export function bench(name, fn) {
  if (typeof name === 'function') { fn = name; name = fn.name || 'anonymous'; }
  const site = callSite();
  const isGen = fn instanceof GeneratorFunction || fn instanceof AsyncGeneratorFunction;
  const entry = declare(name, fn, { site, perCase: isGen,
    async: fn?.constructor?.name === 'AsyncFunction' ? true : null });
  if (isGen) {
    const { setup, teardown } = generatorBench(fn, site);
    entry.setup = setup;
    entry.teardown = teardown;
    entry.async = null;
    // computed parameters ({ [0]() {...}, bench(x) {...} }) are made afresh before every iteration.
    // Whether a generator yields them is known only once it ran, but the worker must know at load
    // whether the benchmark has per-iteration hooks: its source tells.
    if (/\[\s*0\s*\]\s*\(/.test(Function.prototype.toString.call(fn))) {
      entry.iterationSetup = (s) => {
        if (s?.computed) for (let i = 0; i < s.computed.length; i++) s.args[i] = s.computed[i]();
      };
    }
  }
  return new B(entry, fn);
}

export function baseline(name, fn) {
  return bench(name, fn).baseline(true);
}

export function group(name, fn) {
  if (typeof name === 'function') { fn = name; name = null; }
  if (name !== null && typeof name === 'object') name = name.name ?? null;
  if (typeof fn !== 'function') return;
  if (name) registry.groupStack.push({ name: String(name), params: {} });
  try { fn(); } finally { if (name) registry.groupStack.pop(); }
}

function passThrough(fn) { if (typeof fn === 'function') fn(); }
export const summary = passThrough;
export const barplot = passThrough;
export const boxplot = passThrough;
export const lineplot = passThrough;
export const compact = passThrough;

let sink;
export function do_not_optimize(x) { sink = x; return sink; }

export async function run(opts = {}) {
  return {
    benchmarks: [], layout: [], note: NOT_MEASURED_HERE,
    context: { runtime: 'node', version: process.versions.node, arch: `${process.arch}-${process.platform}`,
      cpu: { name: null, freq: null }, noop: null },
  };
}

export async function measure() {
  throw new Error(`mitata measure() is not supported by perflab: it times on the spot; declare the work `
    + `with bench() instead (${where(callSite())})`);
}

function where(stack) {
  const line = String(stack).split('\n').find((l) => /file:\/\/|\(\//.test(l) && !l.includes('/compat/'));
  const m = line && /((?:file:\/\/)?\/[^():\s]+):(\d+)/.exec(line);
  return m ? `${m[1].replace(/^file:\/\//, '')}:${m[2]}` : 'unknown place';
}

export { B };
export const k_state = Symbol.for('mitata.k_state');
export default { bench, baseline, group, summary, barplot, boxplot, lineplot, compact, do_not_optimize, run,
  measure, B };
