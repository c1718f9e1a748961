// What the compatibility layers (tinybench.js, mitata.js, benchmark.js beside this file) share: they
// turn another library's calls into perflab declarations in the worker's registry, exactly as
// `bench()` from 'perflab' does, plus a few fields only the worker reads:
//   perCase      setup returns { fn, arg }: the function timed for this case and what it receives
//                (mitata's generator benchmarks, Benchmark.js setup code shared with the test body)
//   unsupported  a one-line reason: the worker reports this benchmark as failed, alone, at load
// The benchmark files keep their imports; the worker resolves them here (hooks.js, worker.js).
import { _registry as registry } from '../index.js';

/** Declare one benchmark; returns the registry entry (mutable until the file has finished loading). */
export function declare(name, fn, { group = null, params = {}, setup = null, teardown = null,
  iterationSetup = null, iterationTeardown = null, baseline = false, async = null, perCase = false,
  unsupported = null, site = null } = {}) {
  const groups = registry.groupStack.map((g) => g.name);
  if (group) groups.push(group);
  const file = registry.currentFile;
  const entry = {
    name: uniqueName(file, groups.join('.'), String(name || 'anonymous')),
    group: groups.join('.'),
    fn: typeof fn === 'function' ? fn : () => {},
    params: { ...params },
    setup, teardown, iterationSetup, iterationTeardown,
    baseline: !!baseline, ops: 1, async,
    categories: [], description: '', meta: {},
    file,
    site: site ?? new Error().stack,
    perCase, unsupported,
  };
  registry.benchmarks.push(entry);
  return entry;
}

// Two tasks of one name in one group (two `new Bench()` in a file, a suite built twice) would make
// one id twice; the second becomes "name (2)", so both are measured and told apart.
const seen = new Map();  // file → Set of group\0name
function uniqueName(file, group, name) {
  let names = seen.get(file);
  if (!names) seen.set(file, names = new Set());
  let candidate = name;
  for (let k = 2; names.has(`${group}\0${candidate}`); k++) candidate = `${name} (${k})`;
  names.add(`${group}\0${candidate}`);
  return candidate;
}

/** The caller's stack, taken where the user's file called the library (the worker finds file:line). */
export function callSite() {
  return new Error().stack;
}

/** Where a library's figures would be: perflab measures later, in its own stages, so they are empty. */
export const NOT_MEASURED_HERE = 'measured by perflab: the figures are in its table, not here';

/** Run an optional user hook with `this`, awaiting it (hooks may be async). */
export async function callHook(hook, self, ...args) {
  if (typeof hook === 'function') await hook.apply(self, args);
}

/** The file being loaded (null outside a load). */
export function currentFile() {
  return registry.currentFile;
}
