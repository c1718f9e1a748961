// Type-level test of index.d.ts (checked by test.sh with tsc --noEmit when TypeScript is in the perflab cache).
import { bench, group, params } from 'perflab';
bench('a', () => 1);
bench('b', (s: number[]) => s.length, { setup: () => [1, 2, 3], ops: 3, baseline: true });
bench('c', async () => { await null; }).params({ n: [1, 2] }).ops(2);
group('g', { params: { n: [1] } }, () => { params({ m: ['x'] }); bench('d', ({ n, m }: { n: number; m: string }) => m.repeat(n)); });
// @ts-expect-error ops must be a number
bench('e', () => 1, { ops: '2' });
