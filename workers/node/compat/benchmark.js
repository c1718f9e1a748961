// Benchmark.js on perflab: `require('benchmark')` / `import Benchmark from 'benchmark'` in a benchmark
// file resolves here inside perflab's worker. `suite.add()` declares a perflab benchmark (group: the
// suite's name, else the file); `run()` emits Benchmark.js's events at once, with no figures
// (`hz` and `stats` are NaN: perflab measures afterwards, in its own stages).
//
//   new Benchmark.Suite(name?).add(name, fn, options) / .add(name, options) / .add(options)
//     options.setup / options.teardown (functions or code strings): once per case. As in Benchmark.js,
//     when the setup's, test's and teardown's source compile together (no closure variables), they
//     share variables: `setup: function () { var a = [3, 1, 2]; }`, `fn: function () { a.sort(); }`.
//     Otherwise (the test uses the module's variables) setup and fn are called by reference.
//     options.defer: fn(deferred) is timed until it calls deferred.resolve().
//     minSamples, maxTime, initCount, delay, minTime, async, queued: accepted; perflab's job decides.
//   .on(types, listener) / .off / .emit, .run({ async }), .filter('fastest'|'slowest'|'successful'|fn),
//   .map / .pluck / .forEach / .each / .reduce / .toArray, suite[i], suite.length, .abort, .reset
//   new Benchmark(name, fn, options).run()   a benchmark outside a suite is declared when run
import { declare, callSite, NOT_MEASURED_HERE } from './declare.js';

const nanStats = () => ({ moe: NaN, rme: NaN, sem: NaN, deviation: NaN, mean: NaN, variance: NaN, sample: [] });
let counter = 0;

function listify(types) { return String(types).split(/\s+/).filter(Boolean); }

// Benchmark.Event
export function Event(type) {
  if (!(this instanceof Event)) return new Event(type);
  if (type instanceof Event) return type;
  Object.assign(this, typeof type === 'string' ? { type } : type);
  this.timeStamp = Date.now();
  this.aborted = false;
  this.cancelled = false;
}

// The event mix-in Benchmark.js gives benchmarks and suites.
const Emitter = {
  on(types, listener) {
    const events = (this.events ??= {});
    for (const t of listify(types)) (events[t] ??= []).push(listener);
    return this;
  },
  off(types, listener) {
    if (!this.events) return this;
    if (types === undefined) { this.events = {}; return this; }
    for (const t of listify(types)) {
      if (listener === undefined) delete this.events[t];
      else this.events[t] = (this.events[t] ?? []).filter((l) => l !== listener);
    }
    return this;
  },
  emit(type, ...args) {
    const event = Event(type);
    event.currentTarget ??= this;
    event.target ??= this;
    let result;
    for (const l of [...(this.events?.[event.type] ?? [])]) {
      result = l.call(this, event, ...args);
      if (result === false) event.cancelled = true;
      if (event.aborted) break;
    }
    return event.result = result;
  },
  listeners(type) { return ((this.events ??= {})[type] ??= []); },
};

function sourceBody(f) {
  if (typeof f === 'string') return f;
  if (typeof f !== 'function') return '';
  const m = /^[^{]+\{([\s\S]*)\}\s*$/.exec(Function.prototype.toString.call(f));
  return m ? m[1] : null;  // an arrow function without braces has no body to share
}

export default function Benchmark(name, fn, options) {
  if (!(this instanceof Benchmark)) return new Benchmark(name, fn, options);
  if (name !== null && typeof name === 'object') { options = name; name = options.name; fn = options.fn; }
  else if (typeof name === 'function') { options = fn; fn = name; name = fn.name; }
  else if (fn !== null && typeof fn === 'object') { options = fn; fn = options.fn; }
  options = { ...(options ?? {}) };
  this.options = { ...Benchmark.options, ...options };
  this.id = ++counter;
  this.name = name ?? `<Test #${this.id}>`;
  this.fn = fn;
  this.setup = options.setup;
  this.teardown = options.teardown;
  this.defer = !!options.defer;
  this.stats = nanStats();
  this.times = { cycle: NaN, elapsed: NaN, period: NaN, timeStamp: NaN };
  this.hz = NaN;
  this.count = 0;
  this.cycles = 0;
  this.error = undefined;
  this.aborted = false;
  this.running = false;
  this.note = NOT_MEASURED_HERE;
  for (const [k, v] of Object.entries(options)) {
    if (/^on[A-Z]/.test(k) && typeof v === 'function') this.on(k.slice(2).toLowerCase(), v);
  }
  this._site = callSite();
  this._entry = null;
}

Object.assign(Benchmark.prototype, Emitter, {
  toString() { return `${this.name}: ${NOT_MEASURED_HERE}`; },
  clone(options) { return new Benchmark(this.name, this.fn, { ...this.options, ...options }); },
  compare() { return 0; },
  reset() { return this; },
  abort() { this.aborted = true; return this; },
  run() {
    if (!this._entry) declareBenchmark(this, null);
    this.emit('start');
    this.emit('cycle');
    this.emit('complete');
    return this;
  },
});

// One Benchmark.js benchmark → one perflab benchmark.
function declareBenchmark(b, group) {
  const fn = b.fn;
  const site = b._site;
  if (typeof fn !== 'function' && typeof fn !== 'string') {
    b._entry = declare(b.name, () => {}, { group, site,
      unsupported: `Benchmark.js test '${b.name}' has no function to run` });
    return;
  }
  const usesThis = typeof fn === 'function' && /\bthis\b/.test(Function.prototype.toString.call(fn));
  const hasHooks = b.setup != null || b.teardown != null;
  if (b.defer) {
    const deferred = (resolve) => ({ resolve, benchmark: b, cycles: 0, elapsed: 0, timeStamp: 0 });
    b._entry = declare(b.name, () => new Promise((resolve) => { fn.call(b, deferred(resolve)); }), {
      group, site, async: true,
      setup: hasHooks ? async () => { await byReference(b.setup, b); return b; } : null,
      teardown: hasHooks ? async () => { await byReference(b.teardown, b); } : null,
    });
    return;
  }
  if (typeof fn === 'string' || hasHooks) {
    // Benchmark.js compiles setup + test + teardown into one function when their sources allow it, so
    // setup's variables are the test's; when that fails (closure variables), it calls each by reference.
    b._entry = declare(b.name, fn, {
      group, site, perCase: true,
      setup: async () => compiled(b) ?? { fn: usesThis ? () => fn.call(b) : fn, arg: undefined,
        setupDone: await byReference(b.setup, b) },
      teardown: async (state) => {
        if (state?.teardown) state.teardown();
        else await byReference(b.teardown, b);
      },
    });
    return;
  }
  b._entry = declare(b.name, usesThis ? () => fn.call(b) : fn, { group, site });
}

async function byReference(hook, self) {
  if (typeof hook === 'function') await hook.call(self);
  else if (typeof hook === 'string' && hook.trim()) new Function(hook).call(self);
  return true;
}

// setup, test and teardown compiled into one scope (Benchmark.js's "decompilation"); null when their
// sources do not make a function that runs (they use variables of their module).
function compiled(b) {
  const setup = sourceBody(b.setup);
  const body = sourceBody(b.fn);
  const teardown = sourceBody(b.teardown);
  if (setup === null || body === null || teardown === null) return null;
  try {
    const make = new Function(`${setup}\nreturn [function perflabTest() {${body}\n}, function perflabTeardown() {${teardown}\n}];`);
    const [test, down] = make.call(b);
    test.call(b);  // Benchmark.js's pretest: a test that throws here is run by reference instead
    return { fn: test, arg: undefined, teardown: () => down.call(b) };
  } catch {
    return null;
  }
}

export function Suite(name, options) {
  if (!(this instanceof Suite)) return new Suite(name, options);
  if (name !== null && typeof name === 'object') { options = name; name = options.name; }
  this.name = name;
  this.options = { ...Suite.options, ...(options ?? {}) };
  this.length = 0;
  this.aborted = false;
  this.running = false;
  for (const [k, v] of Object.entries(options ?? {})) {
    if (/^on[A-Z]/.test(k) && typeof v === 'function') this.on(k.slice(2).toLowerCase(), v);
  }
}
Suite.options = { name: undefined };

Object.assign(Suite.prototype, Emitter, {
  add(name, fn, options) {
    const b = name instanceof Benchmark ? name : new Benchmark(name, fn, options);
    b._site = callSite();
    const event = Event({ type: 'add', target: b });
    if (this.emit(event) !== false && !event.cancelled) {
      this[this.length++] = b;
      declareBenchmark(b, this.name ? String(this.name) : null);
    }
    return this;
  },
  push(b) { return this.add(b); },
  toArray() { return Array.from({ length: this.length }, (_, i) => this[i]); },
  forEach(fn) { this.toArray().forEach(fn, this); return this; },
  each(fn) { return this.forEach(fn); },
  map(fn) { return this.toArray().map(typeof fn === 'string' ? (b) => b[fn] : fn); },
  pluck(key) { return this.toArray().map((b) => b[key]); },
  reduce(fn, init) { return this.toArray().reduce(fn, init); },
  indexOf(b) { return this.toArray().indexOf(b); },
  filter(how) {
    const all = this.toArray();
    // no figures here, so no benchmark is the fastest or the slowest (perflab's table says which)
    const kept = how === 'fastest' || how === 'slowest' ? []
      : how === 'successful' ? all.filter((b) => !b.error && !b.aborted)
        : typeof how === 'function' ? all.filter(how) : all;
    const out = new Suite(this.name);
    for (const b of kept) out[out.length++] = b;
    return out;
  },
  clone(options) {
    const out = new Suite(this.name, { ...this.options, ...options });
    for (const b of this.toArray()) out[out.length++] = b;
    return out;
  },
  abort() { this.aborted = true; this.emit('abort'); return this; },
  reset() { this.emit('reset'); return this; },
  run(options) {
    const go = () => {
      this.running = true;
      this.emit('start');
      for (const b of this.toArray()) {
        b.emit('start');
        b.emit('cycle');
        b.emit('complete');
        this.emit(Event({ type: 'cycle', target: b }));
      }
      this.running = false;
      this.emit('complete');
    };
    if (options?.async) setTimeout(go, 0); else go();
    return this;
  },
});

Benchmark.Suite = Suite;
Benchmark.Event = Event;
Benchmark.Deferred = function Deferred(clone) { this.benchmark = clone; this.cycles = 0; this.elapsed = 0; this.timeStamp = 0; };
Benchmark.Deferred.prototype.resolve = function resolve() {};
Benchmark.options = { async: false, defer: false, delay: 0.005, initCount: 1, maxTime: 5, minSamples: 5, minTime: 0 };
Benchmark.version = '2.1.4';
Benchmark.platform = { name: 'Node.js', version: process.versions.node, description: `Node.js ${process.versions.node}`,
  toString() { return this.description; } };
Benchmark.support = { browser: false, timeout: true, decompilation: true };
Benchmark.filter = (arr, how) => Suite.prototype.filter.call(Object.assign(new Suite(), { ...arr, length: arr.length }), how).toArray();
Benchmark.formatNumber = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
Benchmark.each = (arr, fn) => { Array.from(arr).forEach(fn); return arr; };
Benchmark.forEach = Benchmark.each;
Benchmark.map = (arr, fn) => Array.from(arr).map(fn);
Benchmark.pluck = (arr, key) => Array.from(arr).map((x) => x[key]);
Benchmark.reduce = (arr, fn, init) => Array.from(arr).reduce(fn, init);
Benchmark.join = (obj, sep1 = ': ', sep2 = ',') => Object.entries(obj).map(([k, v]) => k + sep1 + v).join(sep2);
Benchmark.invoke = (arr, name, ...args) => Array.from(arr).map((b) => (typeof name === 'string' ? b[name](...args) : b[name.name](...(name.args ?? []))));
Benchmark.deepClone = (x) => structuredClone(x);
Benchmark.runInContext = () => Benchmark;
Benchmark.Benchmark = Benchmark;

export { Suite as BenchmarkSuite };
