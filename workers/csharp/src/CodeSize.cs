// The native code size of a JIT-compiled method, from Mono's own embedding API (exported by the
// runtime the worker runs in, hence "__Internal"): mono_jit_info_table_find on the method's code
// address, then mono_jit_info_get_code_size — the figure `MONO_VERBOSE_METHOD=name` prints as
// "code length". Under --interpreter a method has no native code: the size is unknown (null).
using System;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Perflab.Worker
{
    public static class CodeSize
    {
        [DllImport("__Internal")] static extern IntPtr mono_domain_get();
        [DllImport("__Internal")] static extern IntPtr mono_jit_info_table_find(IntPtr domain, IntPtr addr);
        [DllImport("__Internal")] static extern int mono_jit_info_get_code_size(IntPtr jitInfo);

        /// <summary>Bytes of native code of `method` as the JIT compiled it, or null (interpreted, generic
        /// definition, or a runtime that does not export the embedding API).</summary>
        public static long? Of(MethodInfo method)
        {
            try
            {
                if (method.ContainsGenericParameters) return null;
                RuntimeHelpers.PrepareMethod(method.MethodHandle);
                IntPtr ji = mono_jit_info_table_find(mono_domain_get(), method.MethodHandle.GetFunctionPointer());
                if (ji == IntPtr.Zero) return null;
                int size = mono_jit_info_get_code_size(ji);
                return size > 0 ? (long?)size : null;
            }
            catch (Exception) { return null; }  // EntryPointNotFound, DllNotFound: not Mono's runtime
        }

        /// <summary>Does this process JIT-compile (so sizes can be known)? False under --interpreter.</summary>
        public static bool Available()
        {
            return Of(typeof(CodeSize).GetMethod("Available")) != null;
        }
    }
}
