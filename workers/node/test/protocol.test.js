// End to end: a tiny host in JavaScript starts worker.js and drives it over protocol v2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';

const FIXTURE = fileURLToPath(new URL('../../../protocol/fixtures/node/conformance.bench.mjs', import.meta.url));
import { startWorker, TOKEN } from './helpers.js';

test('hello, load, stages, diagnose, errors, bye', async () => {
  const w = await startWorker();
  try {
    assert.equal(w.hello.type, 'hello');
    assert.equal(w.hello.token, TOKEN);
    assert.equal(w.hello.language, 'node');
    assert.equal(w.hello.unroll, 16);
    assert.ok(w.hello.capabilities.includes('with_overhead'));

    const loaded = await w.request('load', { paths: [FIXTURE], root: '/' });
    assert.deepEqual(loaded.errors, []);
    assert.deepEqual(loaded.benchmarks.map((b) => b.id),
      ['conformance.noop', 'conformance.add', 'conformance.sized', 'conformance.boom', 'conformance.base']);

    assert.equal((await w.request('run', { stage: 'workload', invocations: 1, iterations: 1 })).error.kind, 'state');
    assert.equal((await w.request('setup', { benchmark: 'conformance.sized', params: { n: 5 } })).error.kind, 'not_found');
    assert.equal((await w.request('setup', { benchmark: 'conformance.sized', params: { n: 2 } })).type, 'ready');
    for (const stage of ['pilot', 'warmup', 'overhead', 'workload']) {
      const r = await w.request('run', { stage, invocations: 100, iterations: 3 });
      assert.equal(r.type, 'samples');
      assert.equal(r.ns.length, 3);
      assert.ok(r.ns.every((x) => Number.isInteger(x) && x > 0));
    }
    assert.ok(w.hello.capabilities.includes('overhead_first'));
    for (const [invocations, first] of [[100, false], [7, false], [100, true]]) {
      const r = await w.request('run', { stage: 'workload', invocations, iterations: 3, with_overhead: true, overhead_first: first });
      assert.equal(r.type, 'samples');
      assert.equal(r.ns.length, 3);
      assert.equal(r.overhead_ns.length, 3);
      assert.ok(r.overhead_ns.every((x) => Number.isInteger(x) && x >= 0));
    }
    assert.ok(!('overhead_ns' in await w.request('run', { stage: 'workload', invocations: 16, iterations: 1, with_overhead: false })));
    for (const stage of ['pilot', 'warmup', 'overhead', 'diagnose']) {
      const r = await w.request('run', { stage, invocations: 16, iterations: 1, with_overhead: true });
      assert.equal(r.error?.kind, 'protocol', stage);
    }
    const d = await w.request('run', { stage: 'diagnose', invocations: 1000, iterations: 1 });
    assert.equal(d.type, 'diagnostics');
    assert.ok(d.alloc_bytes / 1000 > 800, `alloc ${d.alloc_bytes}`);
    assert.equal((await w.request('teardown')).type, 'done');

    await w.request('setup', { benchmark: 'conformance.boom', params: {} });
    const boom = await w.request('run', { stage: 'workload', invocations: 16, iterations: 1 });
    assert.equal(boom.error.kind, 'exception');
    assert.match(boom.error.message, /boom/);
    assert.equal(boom.error.file, FIXTURE);

    assert.equal((await w.raw('not json')).error.kind, 'protocol');
    assert.equal((await w.request('frobnicate')).error.kind, 'protocol');

    const exited = once(w.child, 'exit');
    assert.equal((await w.request('bye')).type, 'done');
    const [code] = await exited;
    assert.equal(code, 0);
  } finally {
    w.child.kill();
    w.socket.destroy();
  }
});

// The host's rule (src/perflab/engine/worker.py CpuClock.slack_ns): CPU time at most wall + slack.
const cpuSlack = (hello, wall) => Math.max(2 * hello.cpu_clock.resolution_ns, wall / 100, 1_000_000);

test('every iteration reports its CPU time; sleeping takes wall time, not CPU time', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perflab-cpu-'));
  const file = path.join(dir, 'cpu.bench.mjs');
  fs.writeFileSync(file, `import { bench } from 'perflab';
bench('busy', () => { let s = 0; for (let i = 0; i < 2000; i++) s += i * i; return s; });
bench('sleepy', () => new Promise((resolve) => setTimeout(resolve, 5)));
`);
  const w = await startWorker();
  try {
    const clock = w.hello.cpu_clock;
    assert.ok(['thread', 'process'].includes(clock.scope));
    // getrusage(RUSAGE_THREAD) lags the running thread by up to a tick on Linux: never the thread clock there
    if (typeof process.threadCpuUsage !== 'function' || process.platform === 'linux') assert.equal(clock.scope, 'process');
    assert.ok(clock.resolution_ns >= 1);
    await w.request('load', { paths: [file], root: dir });
    assert.equal((await w.request('setup', { benchmark: 'cpu.busy', params: {} })).type, 'ready');
    for (const stage of ['pilot', 'warmup', 'overhead', 'workload']) {
      const r = await w.request('run', { stage, invocations: 200, iterations: 3 });
      assert.equal(r.cpu_ns.length, 3, stage);
      assert.ok(r.cpu_ns.every((x) => Number.isInteger(x) && x >= 0), stage);
      if (clock.scope === 'thread') {  // a process clock also counts V8's other threads
        r.ns.forEach((wall, i) => assert.ok(r.cpu_ns[i] <= wall + cpuSlack(w.hello, wall), `${stage}: ${r.cpu_ns} vs ${r.ns}`));
      }
    }
    const paired = await w.request('run', { stage: 'workload', invocations: 200, iterations: 2, with_overhead: true });
    assert.equal(paired.cpu_ns.length, 2);
    assert.equal(paired.overhead_cpu_ns.length, 2);
    assert.ok(paired.overhead_cpu_ns.every((x) => Number.isInteger(x) && x >= 0));
    await w.request('teardown');
    await w.request('setup', { benchmark: 'cpu.sleepy', params: {} });
    const slept = await w.request('run', { stage: 'workload', invocations: 2, iterations: 3 });
    slept.ns.forEach((wall, i) => assert.ok(slept.cpu_ns[i] < wall / 2, `${slept.cpu_ns} vs ${slept.ns}`));
  } finally {
    w.child.kill();
    w.socket.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a version mismatch is refused and ends the worker', async () => {
  const w = await startWorker();
  try {
    const exited = once(w.child, 'exit');
    const r = await w.raw(JSON.stringify({ v: 3, id: 1, type: 'load', paths: [] }));
    assert.equal(r.error.kind, 'version');
    await exited;
  } finally {
    w.child.kill();
    w.socket.destroy();
  }
});
