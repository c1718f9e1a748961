package perflab.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * CPU time of the measuring thread (ThreadMXBean.getCurrentThreadCpuTime: on Linux HotSpot, the
 * thread's CLOCK_THREAD_CPUTIME_ID). Every generated loop reads it just outside its two
 * System.nanoTime reads and leaves the difference in {@link #last}; a JVM that cannot measure thread
 * CPU time reports none ({@link #AVAILABLE} false).
 */
public final class CpuClock {
    private CpuClock() { }

    private static final ThreadMXBean BEAN = ManagementFactory.getThreadMXBean();
    static final boolean AVAILABLE = enable();

    /** CPU nanoseconds of the last loop the measuring thread ran (only that thread reads or writes it). */
    public static long last;

    private static boolean enable() {
        // count mode: none (under valgrind a thread's CPU time is valgrind's, and may exceed wall time)
        if (CountRegion.ON) return false;
        try {
            if (!BEAN.isCurrentThreadCpuTimeSupported()) return false;
            if (!BEAN.isThreadCpuTimeEnabled()) BEAN.setThreadCpuTimeEnabled(true);
            return BEAN.getCurrentThreadCpuTime() >= 0;
        } catch (RuntimeException e) { // UnsupportedOperationException, SecurityException
            return false;
        }
    }

    /** This thread's CPU time in nanoseconds (0 when not available). */
    public static long now() {
        return AVAILABLE ? BEAN.getCurrentThreadCpuTime() : 0;
    }

    /** The smallest step the clock takes. */
    static long resolution() {
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 20; i++) {
            long a = now(), b = now();
            while (b == a) b = now();
            best = Math.min(best, b - a);
        }
        return Math.max(1, best);
    }
}
