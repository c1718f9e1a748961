// Benchmarks the worker's self-test drives: every attribute the worker honours, in BenchmarkDotNet style.
using System;
using System.Collections.Generic;
using System.Threading.Tasks;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Running;

[MemoryDiagnoser]
[BenchmarkCategory("selftest")]
public class SelfTestBench
{
    [Params(3, 5)]
    public int N;

    public static int GlobalSetups, IterationSetups, Cleanups;
    private int[] _data;

    [GlobalSetup]
    public void Setup() { GlobalSetups++; _data = new int[N]; }

    [GlobalSetup(Target = nameof(Targeted))]
    public void TargetedSetup() { GlobalSetups += 100; }

    [GlobalCleanup]
    public void Cleanup() { Cleanups++; }

    [IterationSetup(Target = nameof(PerIteration))]
    public void BeforeEach() { IterationSetups++; }

    [Benchmark(Baseline = true, OperationsPerInvoke = 4)]
    public int Sum() { int s = 0; foreach (var x in _data) s += x + N; return s; }

    [Benchmark(Description = "allocates 1000 bytes")]
    public byte[] Allocate() => new byte[1000];

    [Benchmark]
    public int Targeted() => GlobalSetups;

    [Benchmark]
    public void PerIteration() { }

    [Benchmark]
    [Arguments(1, "one")]
    [Arguments(2L, "two")]
    public long WithArguments(long number, string name) => number + name.Length;

    [Benchmark]
    [ArgumentsSource(nameof(Sizes))]
    public int FromSource(int size) => size * 2;

    public IEnumerable<int> Sizes() { yield return 7; yield return 9; }

    [Benchmark]
    public async Task<int> Awaited() { await Task.Yield(); return 1; }

    [Benchmark]
    public void Throws() => throw new InvalidOperationException("selftest boom");

    public static void Main(string[] args) => BenchmarkRunner.Run<SelfTestBench>();
}
