// Collections and LINQ experiments of seeds 000 (".NET 6": Collections and LINQ) and 003
// (".NET Core 3.0": Collections, LINQ), ported to JavaScript's Map, Set and Array (whose methods —
// map, every, reduce, slice — are JavaScript's LINQ). Inputs live in each case's state (setup).
import { bench, group } from 'perflab';

const meta = (seed, section) => ({ seed, section });
const S000 = meta('000', 'Collections and LINQ');
const FAITHFUL = { ...S000, fidelity: 'faithful' };

// Dictionary<string,int>(100 entries) ↔ Map<string, number>.
group('Dictionary', {
  setup: () => ({ d: new Map(Array.from({ length: 100 }, (_, i) => [String(i), i])), counts: new Map() }),
}, () => {
  // The copy constructor ↔ new Map(map).
  bench('Clone', ({ d }) => new Map(d), { categories: ['collections', 'quick'], meta: FAITHFUL });

  // The seed's counting loop: keys 0..9999 incremented in one Map that lives as long as the case
  // (the seed's `_counts` field), so after the first call every key exists. Map get + set: two
  // lookups, where CollectionsMarshal.GetValueRefOrAddDefault does one.
  bench('AddNew', ({ counts }) => {
    for (let i = 0; i < 10000; i++) counts.set(i, (counts.get(i) ?? 0) + 1);
  }, { categories: ['collections'], meta: { ...S000,
    fidelity: 'partial: two Map lookups per update (no ref-returning GetValueRefOrAddDefault)' } });
});

group('Linq', {
  setup: () => ({
    strings: Array.from({ length: 100000 }, (_, i) => String(i)),
    e1: Array.from({ length: 1000000 }, (_, i) => i),
    e2: Array.from({ length: 1000000 }, (_, i) => i),
    // TimeSpan.FromMilliseconds(i) ↔ a duration in milliseconds (JavaScript has no TimeSpan)
    spans: Array.from({ length: 1000000 }, (_, i) => i),
  }),
}, () => {
  // Distinct().Count() over 100 000 strings ↔ new Set(...).size.
  bench('DistinctCount', ({ strings }) => new Set(strings).size, { categories: ['collections'], meta: FAITHFUL });

  // Two equal 1 000 000-int sequences ↔ length check + every.
  bench('SequenceEqual', ({ e1, e2 }) => e1.length === e2.length && e1.every((x, i) => x === e2[i]),
    { categories: ['collections'], meta: { ...S000,
      fidelity: "partial: no SequenceEqual in JavaScript; the port's length check + every() stands for it" } });

  // Max()/Min() ↔ reduce (Math.max(...spans) would overflow the stack at 1 000 000 arguments).
  const NO_TIMESPAN = { ...S000, fidelity: 'partial: no duration type or Max/Min in JavaScript; a reduce over milliseconds as numbers' };
  bench('Max', ({ spans }) => spans.reduce((m, x) => (x > m ? x : m)), { categories: ['collections'], meta: NO_TIMESPAN });
  bench('Min', ({ spans }) => spans.reduce((m, x) => (x < m ? x : m)), { categories: ['collections'], meta: NO_TIMESPAN });
});

// Enumerable.Range(0, 100).Select(i => i * 2).ToArray() ↔ Array.from({ length: 100 }, …).
bench('RangeSelectToArray', ({ n }) => Array.from({ length: n }, (_, i) => i * 2),
  { setup: () => ({ n: 100 }), categories: ['collections'], meta: { ...meta('003', 'LINQ'), fidelity: 'faithful' } });

// TakeLast(10).Sum() over 1000 ints ↔ slice(-10) + reduce.
bench('SumLast10', ({ list }) => list.slice(-10).reduce((a, b) => a + b, 0),
  { setup: () => ({ list: Array.from({ length: 1000 }, (_, i) => i) }), categories: ['collections'],
    meta: { ...meta('003', 'LINQ'), fidelity: "partial: no lazy sequences with a take-last in JavaScript; slice(-10) + reduce over an Array, where the seed's TakeLast goes through a lazy Select" } });

// ConcurrentQueue Enqueue/Count/Dequeue ↔ an Array used as a queue: push / length / shift, on a queue
// holding 100 items (the seed's GlobalSetup).
bench('EnqueueCountDequeue', ({ q }) => {
  q.push(42);
  const n = q.length;
  q.shift();
  return n;
}, { setup: () => ({ q: Array.from({ length: 100 }, (_, i) => i) }), categories: ['collections'],
  meta: { ...meta('003', 'Collections'), fidelity: 'partial: no concurrent queue in JavaScript (one thread per isolate); an Array\'s push, length and shift' } });

// Not ported: EnqueueDequeue (PriorityQueue, new in .NET 6) — JavaScript's standard library has no
// priority queue or heap.
