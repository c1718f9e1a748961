// The worker's clocks, read through libc's clock_gettime: Mono's Stopwatch ticks in 100 ns steps on
// Linux, too coarse for one iteration of a fast benchmark; CLOCK_MONOTONIC gives nanoseconds, and
// CLOCK_THREAD_CPUTIME_ID the CPU time of the measuring thread (protocol v2's cpu_ns).
using System;
using System.Runtime.InteropServices;

namespace Perflab.Worker
{
    public static class Clocks
    {
        [StructLayout(LayoutKind.Sequential)]
        struct Timespec { public long Sec; public long Nsec; }

        const int CLOCK_MONOTONIC = 1;
        const int CLOCK_THREAD_CPUTIME_ID = 3;

        [DllImport("libc", EntryPoint = "clock_gettime")]
        static extern int clock_gettime(int clock, out Timespec ts);

        [DllImport("libc", EntryPoint = "clock_getres")]
        static extern int clock_getres(int clock, out Timespec ts);

        public static long NowNs()
        {
            Timespec ts;
            clock_gettime(CLOCK_MONOTONIC, out ts);
            return ts.Sec * 1000000000L + ts.Nsec;
        }

        public static long ThreadCpuNs()
        {
            Timespec ts;
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, out ts);
            return ts.Sec * 1000000000L + ts.Nsec;
        }

        public static long ResolutionNs(bool cpu)
        {
            Timespec ts;
            if (clock_getres(cpu ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, out ts) != 0) return 1;
            long ns = ts.Sec * 1000000000L + ts.Nsec;
            return ns > 0 ? ns : 1;
        }

        /// <summary>True when libc's thread CPU clock answers (false: Windows, or no libc mapping).</summary>
        public static bool HasThreadCpu()
        {
            try { ThreadCpuNs(); return true; }
            catch (Exception) { return false; }
        }
    }
}
