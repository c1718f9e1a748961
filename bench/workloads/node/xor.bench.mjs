// AB_SIZE × 10 dependent 32-bit xor-shift steps per call.
import { bench } from 'perflab';

const SIZE = Number(process.env.AB_SIZE) > 0 ? Number(process.env.AB_SIZE) : 100;
let seed = 2463534242;

bench('work', () => {
  let x = seed;
  for (let i = 0; i < 10 * SIZE; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
  }
  seed = x | 1;
  return x;
});
