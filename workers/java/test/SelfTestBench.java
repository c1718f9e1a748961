import perflab.Baseline;
import perflab.Benchmark;
import perflab.Blackhole;
import perflab.Level;
import perflab.Meta;
import perflab.OperationsPerInvocation;
import perflab.Param;
import perflab.Setup;
import perflab.TearDown;

/** Benchmarks used by SelfTest (compiled and given loops by the same steps as the host's build). */
@Meta({"seed=002", "section=Seek/Position"})
public class SelfTestBench {
    @Param({"3", "5"})
    int n;

    @Param({})
    Mode mode;

    enum Mode { FAST, SLOW }

    int trialSetups;
    static int calls, iterationSetups, iterationTeardowns; // static: SelfTest counts them across the worker's instance

    @Setup
    public void trial() { trialSetups++; }

    @Setup(Level.Iteration)
    public void iteration() { iterationSetups++; }

    @TearDown(Level.Iteration)
    public void iterationDone() { iterationTeardowns++; }

    @Benchmark
    @Baseline
    public int count() {
        calls++;
        return n;
    }

    @Benchmark
    @OperationsPerInvocation(8)
    @Meta({"section=Read & Write", "note=a=b"})
    public void sink(Blackhole bh) {
        for (int i = 0; i < 8; i++) bh.consume(i);
    }

    @Benchmark
    public static long staticOne() {
        return 42L;
    }

    @Benchmark
    public void fails() throws Exception {
        throw new java.io.IOException("disk on fire");
    }

    @Meta("section=Length")
    static class Nested {
        @Benchmark
        public String hello() { return "hi"; }
    }

    /** Hooks in a package-private base class: javac gives the public subclass bridge copies of them. */
    abstract static class HookBase {
        int setups, teardowns;

        @Setup public void baseSetup() { setups++; }
        @TearDown public void baseTeardown() { teardowns++; }
        @Setup(Level.Iteration) public void overridden() { setups += 100; }
    }

    public static class Hooked extends HookBase {
        @Override @Setup(Level.Iteration) public void overridden() { setups += 10; }

        @Benchmark
        public int hooked() { return setups; }
    }
}
