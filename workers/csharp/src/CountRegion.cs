// Count mode (environment PERFLAB_COUNT=1, `perflab run --measure instructions`): the host runs the
// worker under valgrind's callgrind, which counts only inside one native function it sees by name (the
// marker) and writes one dump each time that function returns. JIT-compiled C# has no symbols, so each
// run's timed loop is entered through a native frame: libc's lfind(3), searching a one-element array,
// calls its comparison function exactly once, and that function is a delegate running the loop.
// Neither Mono nor the class library calls lfind, so each `run` request is exactly one marker call.
using System;
using System.Runtime.InteropServices;

namespace Perflab.Worker
{
    public static class CountRegion
    {
        public static readonly bool On = Environment.GetEnvironmentVariable("PERFLAB_COUNT") == "1";

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        delegate int Compare(IntPtr key, IntPtr element);

        [DllImport("libc", EntryPoint = "lfind")]
        static extern IntPtr LFind(IntPtr key, IntPtr array, ref UIntPtr count, UIntPtr size, Compare compare);

        static readonly Compare Callback = Enter;   // kept alive: native code holds its address
        static readonly IntPtr Cell = Marshal.AllocHGlobal(8);  // lfind's key and its one element
        static Action body;
        static Exception thrown;

        static int Enter(IntPtr key, IntPtr element)
        {
            // an exception must not unwind through lfind's native frame: caught here, rethrown in Run
            try { body(); } catch (Exception e) { thrown = e; }
            return 0;
        }

        /// <summary>`region` inside exactly one call of lfind; what it throws is rethrown outside.</summary>
        public static void Run(Action region)
        {
            body = region;
            thrown = null;
            var count = new UIntPtr(1);
            try { LFind(Cell, Cell, ref count, new UIntPtr(8), Callback); }
            finally { body = null; }
            if (thrown != null)
            {
                var e = thrown;
                thrown = null;
                System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(e).Throw();
            }
        }
    }
}
