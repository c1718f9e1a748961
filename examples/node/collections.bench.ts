// TypeScript runs without a build step: Node >= 22.6 strips the types itself; on older Nodes
// perflab compiles the file with the TypeScript compiler it installs from npm into its cache.
import { bench, group } from 'perflab';

interface Lookup {
  keys: string[];
  map: Map<string, number>;
  obj: Record<string, number>;
}

function makeLookup(size: number): Lookup {
  const keys = Array.from({ length: size }, (_, i) => `key${i}`);
  const map = new Map<string, number>(keys.map((k, i) => [k, i] as [string, number]));
  const obj: Record<string, number> = Object.fromEntries(map);
  return { keys, map, obj };
}

group('lookup', { params: { size: [16, 4096] } }, () => {
  bench('Map.get', ({ keys, map }: Lookup) => {
    let sum = 0;
    for (const k of keys) sum += map.get(k)!;
    return sum;
  }, { setup: ({ size }: { size: number }) => makeLookup(size), baseline: true });

  bench('object lookup', ({ keys, obj }: Lookup) => {
    let sum = 0;
    for (const k of keys) sum += obj[k];
    return sum;
  }, { setup: ({ size }: { size: number }) => makeLookup(size) });
});
