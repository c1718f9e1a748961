// The compatibility layers (compat/): files written for tinybench, mitata and Benchmark.js load
// unchanged in the worker and behave as their library promises (hooks, groups, params, async), and
// what perflab cannot honour fails that benchmark alone, naming the API and the file:line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { startWorker } from './helpers.js';

const FIX = (name) => fileURLToPath(new URL(`../../../tests/fixtures/node_compat/bench/${name}`, import.meta.url));

async function load(files) {
  const w = await startWorker();
  const loaded = await w.request('load', { paths: files.map(FIX), root: '/' });
  return { w, loaded, byId: Object.fromEntries(loaded.benchmarks.map((b) => [b.id, b])) };
}

async function runCase(w, id, params = {}, invocations = 1, iterations = 3) {
  const ready = await w.request('setup', { benchmark: id, params });
  if (ready.type !== 'ready') return ready;
  const r = await w.request('run', { stage: 'workload', invocations, iterations });
  await w.request('teardown');
  return r;
}

test('tinybench: tasks, hooks per case and per iteration, async, concurrency fails alone', async () => {
  const { w, loaded, byId } = await load(['tinybench_api.mjs', 'tinybench_cjs.cjs']);
  try {
    assert.deepEqual(Object.keys(byId).sort(), ['tinybench_api.async', 'tinybench_api.hooks', 'tinybench_api.plain',
      'tinybench_cjs.parse', 'tinybench_cjs.promise']);
    assert.equal(byId['tinybench_api.hooks'].iteration_setup, true);  // beforeEach: one call per iteration
    assert.equal(byId['tinybench_api.plain'].iteration_setup, false);
    for (const id of Object.keys(byId)) {
      const iter = byId[id].iteration_setup ? 1 : 32;
      assert.equal((await runCase(w, id, {}, iter)).type, 'samples', id);
    }
    // beforeEach runs before every call: two calls in one iteration are one call without it
    const twice = await runCase(w, 'tinybench_api.hooks', {}, 2, 1);
    assert.equal(twice.type, 'error');
    assert.match(twice.error.message, /beforeEach did not run/);
    const [err] = loaded.errors;
    assert.equal(loaded.errors.length, 1);
    assert.equal(err.benchmark.id, 'tinybench_api.concurrent.overlapping');
    assert.match(err.message, /concurrency 'task' is not supported/);
    assert.match(err.file, /tinybench_api\.mjs$/);
    assert.equal(err.line, 31);
  } finally {
    await w.request('bye');
  }
});

test('mitata: groups, baseline, generator setup, args/range params, computed params, async', async () => {
  const { w, loaded, byId } = await load(['mitata_v1.mjs', 'mitata_v01.mjs']);
  try {
    assert.deepEqual(loaded.errors, []);
    assert.equal(byId['mitata_v1.math.add'].group, 'math');
    assert.equal(byId['mitata_v1.math.add'].baseline, true);
    assert.equal(byId['mitata_v1.in an unnamed group'].group, 'mitata_v1');
    assert.deepEqual(byId['mitata_v1.sum $n'].params, [{ name: 'n', values: ['1', '8', '64'] }]);
    assert.deepEqual(byId['mitata_v1.double'].params, [{ name: 'x', values: ['1', '2', '3'] }]);
    assert.equal(byId['mitata_v1.sort fresh'].iteration_setup, true);
    assert.equal(byId['mitata_v01.strings.concat'].group, 'strings');
    assert.equal(byId['mitata_v01.noop'].baseline, true);
    for (const [id, b] of Object.entries(byId)) {
      if (id === 'mitata_v01.bad yield') continue;
      for (let i = 0; i < (b.params[0]?.values.length ?? 1); i++) {
        const params = b.params.length ? { [b.params[0].name]: i } : {};
        const r = await runCase(w, id, params, b.iteration_setup ? 1 : 32);
        assert.equal(r.type, 'samples', `${id} ${JSON.stringify(params)}: ${JSON.stringify(r.error)}`);
      }
    }
    const bad = await w.request('setup', { benchmark: 'mitata_v01.bad yield', params: {} });
    assert.equal(bad.type, 'error');
    assert.match(bad.error.message, /must yield a function.*mitata_v01\.mjs:13/);
  } finally {
    await w.request('bye');
  }
});

test('Benchmark.js: suites, shared setup code, setup by reference, defer, a test without fn fails alone', async () => {
  const { w, loaded, byId } = await load(['benchmarkjs_api.js', 'benchmarkjs_esm.mjs']);
  try {
    assert.deepEqual(Object.keys(byId).sort(), ['benchmarkjs_api.json.by reference',
      'benchmarkjs_api.json.deferred', 'benchmarkjs_api.json.shared setup', 'benchmarkjs_api.json.stringify',
      'benchmarkjs_api.solo', 'benchmarkjs_esm.esm']);
    for (const id of Object.keys(byId)) {
      assert.equal((await runCase(w, id, {}, 16)).type, 'samples', id);
    }
    assert.equal(loaded.errors.length, 1);
    assert.equal(loaded.errors[0].benchmark.id, 'benchmarkjs_api.json.no function');
    assert.match(loaded.errors[0].message, /Benchmark\.js test 'no function' has no function/);
    assert.equal(loaded.errors[0].line, 20);
  } finally {
    await w.request('bye');
  }
});
