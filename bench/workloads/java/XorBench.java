import perflab.Benchmark;

/** AB_SIZE × 10 dependent xor-shift steps per call. */
public class XorBench {
    static final int STEPS = 10 * size();
    long seed = 88172645463325252L;

    static int size() {
        try {
            int n = Integer.parseInt(System.getenv("AB_SIZE"));
            return n > 0 ? n : 100;
        } catch (RuntimeException e) {
            return 100;
        }
    }

    @Benchmark
    public long work() {
        long x = seed;
        for (int j = 0; j < STEPS; j++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }
}
