package perflab;

/**
 * Sinks values so the JIT cannot remove the computation that produced them.
 *
 * <p>When the worker runs with {@code -XX:CompileCommand=blackhole,perflab.Blackhole::sink*} (JDK 17+,
 * set by perflab when the JVM accepts it) the compilers treat {@code sink*} as opaque uses of their
 * argument at no cost. Otherwise a volatile-read comparison (JMH's classic scheme) keeps the value alive.
 * Benchmark methods may return their result (the worker sinks it) or take a Blackhole argument.
 */
public final class Blackhole {
    static final boolean COMPILER = "compiler".equals(System.getProperty("perflab.blackhole"));

    // the classic scheme: two volatile fields that never hold the value; the write never happens
    private static volatile int i1 = 1, i2 = 2;
    private static volatile long l1 = 1, l2 = 2;
    private static volatile double d1 = 1, d2 = 2;
    private static volatile Object sinkObj;
    private static int tlr = 1;
    private static volatile int tlrMask = 1;

    public Blackhole() {
    }

    public static boolean compilerAssisted() {
        return COMPILER;
    }

    public void consume(Object v) { consumeStatic(v); }
    public void consume(int v) { consumeStatic(v); }
    public void consume(long v) { consumeStatic(v); }
    public void consume(double v) { consumeStatic(v); }
    public void consume(float v) { consumeStatic(v); }
    public void consume(boolean v) { consumeStatic(v); }
    public void consume(byte v) { consumeStatic(v); }
    public void consume(short v) { consumeStatic(v); }
    public void consume(char v) { consumeStatic(v); }

    public static void consumeStatic(Object v) {
        if (COMPILER) { sinkObj(v); return; }
        int t = tlr * 1664525 + 1013904223;
        tlr = t;
        if ((t & tlrMask) == 0) { // rarely taken, unpredictable to the compiler
            sinkObj = v;
            tlrMask = (tlrMask << 1) | 1;
        }
    }
    public static void consumeStatic(int v) {
        if (COMPILER) { sinkInt(v); return; }
        if (v == i1 & v == i2) i1 = v; // never true: i1 != i2
    }
    public static void consumeStatic(long v) {
        if (COMPILER) { sinkLong(v); return; }
        if (v == l1 & v == l2) l1 = v;
    }
    public static void consumeStatic(double v) {
        if (COMPILER) { sinkDouble(v); return; }
        if (v == d1 & v == d2) d1 = v;
    }
    public static void consumeStatic(float v) { consumeStatic((double) v); }
    public static void consumeStatic(boolean v) { consumeStatic(v ? 1 : 0); }
    public static void consumeStatic(byte v) { consumeStatic((int) v); }
    public static void consumeStatic(short v) { consumeStatic((int) v); }
    public static void consumeStatic(char v) { consumeStatic((int) v); }

    // Compiler blackholes: empty static void methods, their calls kept as opaque uses by C1/C2.
    private static void sinkObj(Object v) { }
    private static void sinkInt(int v) { }
    private static void sinkLong(long v) { }
    private static void sinkDouble(double v) { }
}
