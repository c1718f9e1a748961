import java.util.ArrayList;
import java.util.List;

import perflab.Baseline;
import perflab.Benchmark;
import perflab.OperationsPerInvocation;
import perflab.Setup;

/** Summing 1000 numbers from an int[] versus a List<Integer>: boxing costs memory traffic. */
public class BoxingBench {
    static final int N = 1000;
    int[] primitives;
    List<Integer> boxed;

    @Setup
    public void prepare() {
        primitives = new int[N];
        boxed = new ArrayList<>();
        for (int i = 0; i < N; i++) {
            primitives[i] = i * 7;
            boxed.add(i * 7);
        }
    }

    @Benchmark
    @Baseline
    @OperationsPerInvocation(N)
    public long array() {
        long s = 0;
        for (int v : primitives) s += v;
        return s;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public long list() {
        long s = 0;
        for (Integer v : boxed) s += v;
        return s;
    }
}
