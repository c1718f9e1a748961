// The authoring API records declarations correctly (no worker, no socket).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bench, group, params, _registry } from '../index.js';

let fileNo = 0;
function declared(fn) {
  const before = _registry.benchmarks.length;
  _registry.currentFile = `/virtual/f${++fileNo}.bench.mjs`;
  try { fn(); } finally { _registry.currentFile = null; }
  return _registry.benchmarks.slice(before);
}

test('bench records options and defaults', () => {
  const [b] = declared(() => bench('a', () => 1));
  assert.equal(b.name, 'a');
  assert.equal(b.group, '');
  assert.equal(b.ops, 1);
  assert.equal(b.baseline, false);
  assert.deepEqual(b.params, {});
  assert.match(b.file, /^\/virtual\/f\d+\.bench\.mjs$/);
  assert.match(b.site, /api\.test\.js/);
});

test('groups nest, share params and setup; bench options win', () => {
  const setup = () => 'state';
  const list = declared(() => group('outer', { params: { n: [1, 2] }, setup }, () => {
    group('inner', () => {
      params({ s: ['x'] });
      bench('b1', () => 1);
      bench('b2', () => 1, { params: { n: [3] }, baseline: true, ops: 4 });
    });
  }));
  assert.deepEqual(list.map((b) => b.group), ['outer.inner', 'outer.inner']);
  assert.deepEqual(list[0].params, { n: [1, 2], s: ['x'] });
  assert.deepEqual(list[1].params, { n: [3], s: ['x'] });
  assert.equal(list[0].setup, setup);
  assert.equal(list[1].baseline, true);
  assert.equal(list[1].ops, 4);
});

test('top-level params apply to the rest of the file only', () => {
  const list = declared(() => {
    bench('before', () => 1);
    params({ k: [1] });
    bench('after', () => 1);
  });
  assert.deepEqual(list[0].params, {});
  assert.deepEqual(list[1].params, { k: [1] });
});

test('chained refinements', () => {
  const [b] = declared(() => bench('c', () => 1).params({ n: [1] }).ops(2).baseline());
  assert.deepEqual(b.params, { n: [1] });
  assert.equal(b.ops, 2);
  assert.equal(b.baseline, true);
});

test('mistakes are reported at declaration', () => {
  declared(() => {
    assert.throws(() => bench('', () => 1), TypeError);
    assert.throws(() => bench('x', 42), TypeError);
    assert.throws(() => bench('x', () => 1, { opz: 1 }), /unknown option 'opz'/);
    assert.throws(() => bench('x', () => 1, { ops: 0 }), RangeError);
    assert.throws(() => group('g', async () => {}), /synchronous/);
  });
});
