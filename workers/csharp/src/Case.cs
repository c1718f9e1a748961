// One case (benchmark × parameter indices) set up for timing: the instance with its parameters, the
// global setup done, and two compiled loops — the benchmark's and an empty one of the same shape.
//
// Each loop is an expression tree compiled into a dynamic method: `for (i = 0; i < n; i++)
// Sink<T>.Value = instance.Method(args...)`, a direct (monomorphic) call the JIT compiles on its own,
// the way BenchmarkDotNet generates one class per benchmark. The result is stored to a static field
// every call (BenchmarkDotNet's Consumer does a volatile store) so the call cannot be dropped, and
// arguments are read from boxes, not embedded as constants, so they cannot be constant-folded.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Linq.Expressions;
using System.Reflection;
using System.Runtime.CompilerServices;
using BenchmarkDotNet.Attributes;

namespace Perflab.Worker
{
    public static class Sink<T> { public static T Value; }

    // The empty call of the overhead loop has the benchmark's own shape, because on Mono the shape
    // alone moves an empty call by a fraction of a nanosecond, which the subtraction would leave in
    // every result: a static method, an instance method of a sealed or of an open class, inlined or
    // not. Measured (issue #38) against a NoInlining method of a sealed class, empty benchmarks read:
    // static −1.05 ns, sealed and inlinable −0.42 ns, open and NoInlining +0.22 ns, on 1.4-2.0 ns
    // calls; against the target of their own shape −0.01, +0.11/+0.13, −0.07/−0.02 ns. An open
    // class's inlinable empty method still reads +0.2 to +0.3 ns against any empty target tried (the
    // fixture's `noop`): the cause is not found (docs/too-fast.md).
    public sealed class EmptySealed
    {
        public void Void() { }
        public T Value<T>() { return default(T); }
    }

    public sealed class EmptySealedCall
    {
        [MethodImpl(MethodImplOptions.NoInlining)] public void Void() { }
        [MethodImpl(MethodImplOptions.NoInlining)] public T Value<T>() { return default(T); }
    }

    public class EmptyOpenCall
    {
        [MethodImpl(MethodImplOptions.NoInlining)] public void Void() { }
        [MethodImpl(MethodImplOptions.NoInlining)] public T Value<T>() { return default(T); }
    }

    public static class EmptyStatic
    {
        public static void Void() { }
        public static T Value<T>() { return default(T); }
        [MethodImpl(MethodImplOptions.NoInlining)] public static void VoidCall() { }
        [MethodImpl(MethodImplOptions.NoInlining)] public static T ValueCall<T>() { return default(T); }
    }

    public sealed class Case
    {
        public readonly BenchInfo Bench;
        public readonly object Instance;
        public readonly Action<long> Loop, Overhead;
        readonly List<MethodInfo> iterationSetup, iterationCleanup;

        public Case(BenchInfo bench, Dictionary<string, long> indices)
        {
            Bench = bench;
            Instance = bench.Method.IsStatic && bench.Type.IsAbstract ? null : Discovery.NewInstance(bench.Type);
            object[] args = new object[0];
            foreach (var axis in bench.Axes)
            {
                long k;
                if (!indices.TryGetValue(axis.Name, out k)) k = 0;
                if (k < 0 || k >= axis.Values.Count)
                    throw new NotFoundException("parameter '" + axis.Name + "' has no value #" + k);
                if (axis == bench.Arguments) { args = (object[])axis.Values[(int)k]; continue; }
                var f = axis.Member as FieldInfo;
                if (f != null) f.SetValue(f.IsStatic ? null : Instance, axis.Values[(int)k]);
                else
                {
                    var p = (PropertyInfo)axis.Member;
                    p.SetValue(p.GetSetMethod(true).IsStatic ? null : Instance, axis.Values[(int)k], null);
                }
            }
            foreach (var h in Discovery.Hooks(bench.Type, typeof(GlobalSetupAttribute), bench.Method.Name)) Invoke(h);
            iterationSetup = Discovery.Hooks(bench.Type, typeof(IterationSetupAttribute), bench.Method.Name);
            iterationCleanup = Discovery.Hooks(bench.Type, typeof(IterationCleanupAttribute), bench.Method.Name);
            var result = ResultType(bench.Method.ReturnType);
            // a ref struct (Span<T>…) cannot be a generic argument or a static field: call, then discard
            bool byRefLike = IsByRefLike(result);
            Loop = BuildLoop(byRefLike ? Expression.Block(typeof(void), CallBenchmark(args)) : CallBenchmark(args));
            Overhead = BuildLoop(CallEmpty(byRefLike ? typeof(void) : result, bench.Method, bench.Type));
            // compile both loops now (a loop of zero calls), so no JIT work lands in a timed iteration
            Loop(0);
            Overhead(0);
            // count mode: also run each loop's first call now (what it calls is compiled at that call),
            // so no counted run carries one-time JIT work; not the benchmark's if it has iteration hooks
            if (CountRegion.On)
            {
                Overhead(1);
                if (iterationSetup.Count == 0 && iterationCleanup.Count == 0) Loop(1);
            }
        }

        public void GlobalCleanup()
        {
            foreach (var h in Discovery.Hooks(Bench.Type, typeof(GlobalCleanupAttribute), Bench.Method.Name)) Invoke(h);
        }

        public void BeforeIteration() { foreach (var h in iterationSetup) Invoke(h); }
        public void AfterIteration() { foreach (var h in iterationCleanup) Invoke(h); }

        void Invoke(MethodInfo h)
        {
            try { h.Invoke(h.IsStatic ? null : Instance, null); }
            catch (TargetInvocationException e)
            {
                var kind = h.GetCustomAttributes(typeof(TargetedAttribute), true).FirstOrDefault();
                var what = kind == null ? h.Name : kind.GetType().Name.Replace("Attribute", "") + " " + h.Name;
                throw new BenchmarkException(e.InnerException ?? e, what + " failed: ");
            }
        }

        Expression CallBenchmark(object[] args)
        {
            var m = Bench.Method;
            var ps = m.GetParameters();
            var argExprs = new Expression[ps.Length];
            for (int k = 0; k < ps.Length; k++)
            {
                var t = ps[k].ParameterType.IsByRef ? ps[k].ParameterType.GetElementType() : ps[k].ParameterType;
                var box = Activator.CreateInstance(typeof(StrongBox<>).MakeGenericType(t), new[] { args[k] });
                argExprs[k] = Expression.Field(Expression.Constant(box), "Value");
            }
            if (ps.Any(p => p.ParameterType.IsByRef))
                throw new NotSupportedException(m.Name + " takes a ref/out/in parameter: perflab passes arguments by value");
            Expression call = Expression.Call(m.IsStatic ? null : Expression.Constant(Instance, Bench.Type), m, argExprs);
            return Await(call);
        }

        /// <summary>Task, ValueTask and any awaitable are awaited (GetAwaiter().GetResult()), as BenchmarkDotNet does.</summary>
        static Expression Await(Expression call)
        {
            var getAwaiter = call.Type == typeof(void) ? null : call.Type.GetMethod("GetAwaiter", Type.EmptyTypes);
            if (getAwaiter == null) return call;
            var getResult = getAwaiter.ReturnType.GetMethod("GetResult", Type.EmptyTypes);
            if (getResult == null) return call;
            return Expression.Call(Expression.Call(call, getAwaiter), getResult);
        }

        static bool IsByRefLike(Type t)
        {
            return t.GetCustomAttributes(false).Any(a => a.GetType().FullName == "System.Runtime.CompilerServices.IsByRefLikeAttribute");
        }

        static Type ResultType(Type returnType)
        {
            if (returnType == typeof(void)) return returnType;
            var getAwaiter = returnType.GetMethod("GetAwaiter", Type.EmptyTypes);
            var getResult = getAwaiter == null ? null : getAwaiter.ReturnType.GetMethod("GetResult", Type.EmptyTypes);
            return getResult != null ? getResult.ReturnType : returnType;
        }

        /// <summary>Mono's JIT inlines a method whose IL is at most this many bytes (MONO_INLINELIMIT's
        /// default) unless it is marked NoInlining: the empty call is inlined where the benchmark's
        /// would be.</summary>
        const int MonoInlineLimit = 20;

        static Expression CallEmpty(Type result, MethodInfo benchmark, Type owner)
        {
            var body = benchmark.GetMethodBody();
            bool inlined = (benchmark.MethodImplementationFlags & MethodImplAttributes.NoInlining) == 0
                           && body != null && body.GetILAsByteArray().Length <= MonoInlineLimit;
            string name = result == typeof(void) ? "Void" : "Value";
            if (benchmark.IsStatic)
            {
                var sm = typeof(EmptyStatic).GetMethod(inlined ? name : name + "Call");
                return Expression.Call(null, result == typeof(void) ? sm : sm.MakeGenericMethod(result));
            }
            // an open class's inlinable empty method read +0.54 ns against an inlinable empty target of
            // an open class, +0.21 to +0.30 against a NoInlining one, +0.13 to +0.26 against the sealed
            // NoInlining one: the least of those; a NoInlining one of an open class reads ±0.07 ns
            // against its own shape
            var type = owner.IsSealed ? (inlined ? typeof(EmptySealed) : typeof(EmptySealedCall))
                                      : (inlined ? typeof(EmptySealedCall) : typeof(EmptyOpenCall));
            var target = Expression.Constant(Activator.CreateInstance(type), type);
            var m = type.GetMethod(name);
            return Expression.Call(target, result == typeof(void) ? m : m.MakeGenericMethod(result));
        }

        static Action<long> BuildLoop(Expression call)
        {
            var n = Expression.Parameter(typeof(long), "n");
            var i = Expression.Variable(typeof(long), "i");
            var done = Expression.Label("done");
            Expression body = call.Type == typeof(void)
                ? call
                : Expression.Assign(Expression.Field(null, typeof(Sink<>).MakeGenericType(call.Type).GetField("Value")), call);
            var loop = Expression.Block(new[] { i },
                Expression.Assign(i, Expression.Constant(0L)),
                Expression.Loop(
                    Expression.IfThenElse(Expression.LessThan(i, n),
                        Expression.Block(body, Expression.PreIncrementAssign(i)),
                        Expression.Break(done)),
                    done));
            return Expression.Lambda<Action<long>>(loop, n).Compile();
        }
    }

    public sealed class NotFoundException : Exception { public NotFoundException(string m) : base(m) { } }

    /// <summary>An exception thrown by the benchmark's own code (not by the worker).</summary>
    public sealed class BenchmarkException : Exception
    {
        public readonly Exception Original;
        public readonly string Context;  // "GlobalSetup Setup failed: " when a hook threw
        public BenchmarkException(Exception original, string context = "") : base(original.Message)
        {
            Original = original;
            Context = context;
        }
    }
}
