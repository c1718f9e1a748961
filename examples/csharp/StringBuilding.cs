// A benchmark class in everyday BenchmarkDotNet style, as one would write it for `dotnet run -c Release`.
// perflab runs it unedited on Mono: `perflab run examples/csharp --runtimes mono,mono:--interpreter`.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Order;
using BenchmarkDotNet.Running;

namespace Examples.Strings
{
    [MemoryDiagnoser]
    [SimpleJob(RuntimeMoniker.Net60, baseline: true)]
    [Orderer(SummaryOrderPolicy.FastestToSlowest)]
    [HideColumns("Error", "StdDev")]
    [BenchmarkCategory("strings")]
    public class StringBuilding
    {
        [Params(10, 1000)]
        public int Count { get; set; }

        private string[] _words;

        [GlobalSetup]
        public void Setup()
        {
            var random = new Random(42);
            _words = Enumerable.Range(0, Count)
                               .Select(_ => new string((char)('a' + random.Next(26)), random.Next(1, 12)))
                               .ToArray();
        }

        [Benchmark(Baseline = true, Description = "string.Concat in a loop")]
        public string Concatenate()
        {
            string result = "";
            foreach (var w in _words) result += w;
            return result;
        }

        [Benchmark]
        public string Builder()
        {
            var sb = new StringBuilder();
            foreach (var w in _words) sb.Append(w);
            return sb.ToString();
        }

        [Benchmark]
        public string Join() => string.Join("", _words);
    }

    [MemoryDiagnoser]
    public class Parsing
    {
        [Benchmark]
        [Arguments("12345")]
        [Arguments("-2147483648")]
        public int ParseInt(string text) => int.Parse(text);

        [Benchmark(OperationsPerInvoke = 16)]
        [ArgumentsSource(nameof(Separators))]
        public int Split(char separator, int parts)
        {
            int total = 0;
            string line = string.Join(separator.ToString(), Enumerable.Repeat("field", parts));
            for (int i = 0; i < 16; i++) total += line.Split(separator).Length;
            return total;
        }

        public IEnumerable<object[]> Separators()
        {
            yield return new object[] { ',', 4 };
            yield return new object[] { ';', 32 };
        }

        [ParamsAllValues]
        public bool IgnoreCase { get; set; }

        [Benchmark]
        public bool EqualsName() => string.Equals("PerfLab", "perflab",
            IgnoreCase ? StringComparison.OrdinalIgnoreCase : StringComparison.Ordinal);
    }

    public static class Program
    {
        public static void Main(string[] args) =>
            BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, DefaultConfig.Instance);
    }
}
