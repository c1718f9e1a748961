package perflab.internal;

import perflab.Blackhole;

/** Implemented by the loop class perflab generates for every benchmark method (see Gen). */
public interface Harness {
    /**
     * Calls the benchmark n times in its own tight loop; returns the elapsed nanoseconds and leaves the
     * thread's CPU nanoseconds meanwhile in {@link CpuClock#last}.
     */
    long workload(Object target, int n, Blackhole bh) throws Throwable;

    /** The identical loop around an empty method of the same shape. */
    long overhead(Object target, int n, Blackhole bh) throws Throwable;
}
