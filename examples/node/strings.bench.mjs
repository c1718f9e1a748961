// Run with:  perflab run examples/node --runtimes node20,node22
// String building three ways, for sizes 10 and 1000. `concat` is the baseline of its group.
import { bench, group, params } from 'perflab';

group('build', () => {
  params({ n: [10, 1000] });

  bench('concat', ({ n }) => {
    let s = '';
    for (let i = 0; i < n; i++) s += 'x';
    return s;
  }, { baseline: true });

  bench('join', ({ n }) => new Array(n).fill('x').join(''));

  bench('repeat', ({ n }) => 'x'.repeat(n));
});

// setup runs once per case, outside timing; the benchmark receives what it returns.
bench('split', (text) => text.split(','), {
  params: { words: [10, 1000] },
  setup: ({ words }) => Array.from({ length: words }, (_, i) => `w${i}`).join(','),
});

// 4 operations per call: perflab reports time per operation.
bench('charCodeAt x4', (s) => s.charCodeAt(0) + s.charCodeAt(1) + s.charCodeAt(2) + s.charCodeAt(3), {
  setup: () => 'abcd',
  ops: 4,
});

// Async benchmarks are awaited call by call: this times a resolved microtask round trip.
bench('await resolved', async () => { await null; });
