// perflab's authoring API for JavaScript and TypeScript benchmark files.
//
//   import { bench, group, params } from 'perflab';
//
//   bench('parse', () => JSON.parse(text));                       // id: <file stem>.parse
//   group('sort', () => {                                          // id: <file stem>.sort.<name>
//     params({ n: [10, 1000] });                                   // axes shared by the group
//     bench('builtin', (arr) => arr.slice().sort(), {
//       setup: ({ n }) => randomArray(n),   // per case; its result is what the benchmark receives
//       baseline: true,
//     });
//     bench('fetch', async () => { await get(url); });             // async: each call is awaited
//   });
//
// The file only *declares* benchmarks; the worker (worker.js) discovers, sets up and times them when
// the perflab host asks. `import 'perflab'` resolves to this file through the worker's module hook,
// so nothing has to be installed next to the benchmarks.

// One registry per process even if this module were somehow loaded twice under two URLs.
const KEY = Symbol.for('perflab.registry');
const registry = (globalThis[KEY] ??= { benchmarks: [], currentFile: null, groupStack: [] });

/** @internal used by the worker */
export const _registry = registry;

const OPTION_KEYS = new Set(['params', 'setup', 'teardown', 'iterationSetup', 'iterationTeardown',
  'baseline', 'ops', 'async', 'categories', 'description', 'meta']);

/**
 * Declare a benchmark.
 * fn(state) is what gets timed; `state` is what setup returned, or the case's parameter values
 * ({ n: 10 }) when there is no setup (or setup returns undefined).
 */
export function bench(name, fn, options = {}) {
  if (typeof name !== 'string' || !name) throw new TypeError('perflab.bench: name must be a non-empty string');
  if (typeof fn !== 'function') throw new TypeError(`perflab.bench('${name}'): fn must be a function`);
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`perflab.bench('${name}'): options must be an object`);
  }
  for (const k of Object.keys(options)) {
    if (!OPTION_KEYS.has(k)) throw new TypeError(`perflab.bench('${name}'): unknown option '${k}'`);
  }
  const groups = registry.groupStack;
  const inherited = (key) => {  // from the innermost enclosing group that sets it
    for (let i = groups.length - 1; i >= 0; i--) if (groups[i][key] != null) return groups[i][key];
    return null;
  };
  const ops = options.ops ?? 1;
  if (!Number.isInteger(ops) || ops < 1) throw new RangeError(`perflab.bench('${name}'): ops must be an integer >= 1`);
  const entry = {
    name,
    group: groups.map((x) => x.name).join('.'),  // '' → the worker uses the file stem
    fn,
    params: { ...(registry.fileParams?.get(registry.currentFile) ?? {}), ...mergedGroupParams(),
      ...(options.params ?? {}) },
    setup: options.setup ?? inherited('setup'),
    teardown: options.teardown ?? inherited('teardown'),
    iterationSetup: options.iterationSetup ?? null,
    iterationTeardown: options.iterationTeardown ?? null,
    baseline: !!options.baseline,
    ops,
    async: options.async ?? null,  // null: detected (async function, or first call returns a thenable)
    categories: [...(options.categories ?? inherited('categories') ?? [])],
    description: options.description ?? '',
    meta: { ...(options.meta ?? {}) },
    file: registry.currentFile,
    site: new Error().stack,  // the worker turns this into file:line
  };
  registry.benchmarks.push(entry);
  return chain(entry);
}

// Chainable refinements, for those who prefer mitata's style: bench(...).params({n: [1, 2]}).ops(4)
function chain(entry) {
  const api = {
    params(axes) { entry.params = { ...entry.params, ...axes }; return api; },
    setup(fn) { entry.setup = fn; return api; },
    teardown(fn) { entry.teardown = fn; return api; },
    baseline(on = true) { entry.baseline = !!on; return api; },
    ops(n) {
      if (!Number.isInteger(n) || n < 1) throw new RangeError('perflab: ops must be an integer >= 1');
      entry.ops = n; return api;
    },
  };
  return api;
}

function mergedGroupParams() {
  const out = {};
  for (const g of registry.groupStack) Object.assign(out, g.params);
  return out;
}

/**
 * Group benchmarks: rows are grouped by it and a baseline is relative to its group.
 * group(name, body) or group(name, { params, setup, teardown, categories }, body).
 * `body` runs immediately and synchronously.
 */
export function group(name, optionsOrBody, maybeBody) {
  const body = typeof optionsOrBody === 'function' ? optionsOrBody : maybeBody;
  const options = typeof optionsOrBody === 'function' ? {} : (optionsOrBody ?? {});
  if (typeof name !== 'string' || !name) throw new TypeError('perflab.group: name must be a non-empty string');
  if (typeof body !== 'function') throw new TypeError(`perflab.group('${name}'): body must be a function`);
  registry.groupStack.push({ name, params: { ...(options.params ?? {}) }, setup: options.setup,
    teardown: options.teardown, categories: options.categories });
  try {
    const r = body();
    if (r && typeof r.then === 'function') {
      throw new TypeError(`perflab.group('${name}'): body must be synchronous (declare, don't await)`);
    }
  } finally {
    registry.groupStack.pop();
  }
}

/** Parameter axes for the benchmarks declared after it in the enclosing group (or the whole file). */
export function params(axes) {
  if (axes === null || typeof axes !== 'object') throw new TypeError('perflab.params: expected { name: [values] }');
  const g = registry.groupStack[registry.groupStack.length - 1];
  if (g) Object.assign(g.params, axes);
  else {
    // top level: applies to the rest of this file
    (registry.fileParams ??= new Map());
    const cur = registry.fileParams.get(registry.currentFile) ?? {};
    registry.fileParams.set(registry.currentFile, { ...cur, ...axes });
  }
}
