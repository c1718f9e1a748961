package perflab.internal;

/**
 * Count mode (environment PERFLAB_COUNT=1, {@code perflab run --measure instructions}): the host runs
 * the worker under valgrind's callgrind, which counts only inside one native function it sees by name
 * (the marker) and writes one dump each time that function returns. JIT-compiled Java has no symbols,
 * so each run's timed loop is entered through a native frame of the JVM: {@link StackWalker#walk}
 * calls its function from inside {@code JVM_CallStackWalk} (exported by libjvm.so since JDK 9).
 * Nothing else in the worker walks the stack, so each {@code run} request is exactly one marker call.
 */
final class CountRegion {
    static final boolean ON = "1".equals(System.getenv("PERFLAB_COUNT"));
    private static final StackWalker WALKER = StackWalker.getInstance();

    interface Body {
        void run() throws Throwable;
    }

    private CountRegion() {}

    /** Calls of each generated loop before the first counted run: past COMPILE_THRESHOLD (a pinned JVM flag). */
    static final int TIER_UP_CALLS = 3 * 100;

    /**
     * The case's two generated loops, called until the JIT has compiled them (and what they inline)
     * the ordinary way, once before its first counted run: counts are then taken on compiled code at
     * every run, not on a mix that depends on where in the sequence the compiler stepped in. Skipped
     * when the benchmark has per-iteration or per-invocation hooks (extra calls might consume its state).
     */
    static void tierUp(Worker.CaseState cs) throws Throwable {
        if (cs.tieredUp) return;
        cs.tieredUp = true;
        Model.Bench b = cs.bench;
        for (perflab.Level level : new perflab.Level[]{perflab.Level.Iteration, perflab.Level.Invocation}) {
            if (!b.setups.get(level).isEmpty() || !b.teardowns.get(level).isEmpty()) return;
        }
        for (int i = 0; i < TIER_UP_CALLS; i++) {
            cs.harness.overhead(cs.instance, 1, cs.bh);
            cs.harness.workload(cs.instance, 1, cs.bh);
        }
    }

    /** {@code body} inside exactly one call of JVM_CallStackWalk; what it throws is rethrown outside. */
    static void run(Body body) throws Throwable {
        Throwable[] thrown = new Throwable[1];
        WALKER.walk(frames -> {
            try {
                body.run();
            } catch (Throwable t) {
                thrown[0] = t;
            }
            return null;
        });
        if (thrown[0] != null) throw thrown[0];
    }
}
