// perflab: {"seed": "001", "section": "ThreadStatic", "source": "001_9ac5802aee04f6ed.txt", "lines": "10-22", "categories": ["threading", "seed_csharp"], "group": "001 L10 Increment", "fidelity": "faithful"}
// Extracted by scripts/extract_csharp_seeds.py from 001_9ac5802aee04f6ed.txt, lines 10-22 (seed 001, section ThreadStatic), unedited.
// A whole program, as the seed shows it.
// dotnet run -c Release -f net7.0 --filter "*" --runtimes net7.0 net8.0
// dotnet run -c Release -f net7.0 --filter "*" --runtimes nativeaot7.0 nativeaot8.0
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Running;
BenchmarkSwitcher.FromAssembly(typeof(Tests).Assembly).Run(args);
[HideColumns("Error", "StdDev", "Median", "RatioSD")]
public partial class Tests
{
[ThreadStatic]
private static int t_value;
[Benchmark]
public int Increment() => ++t_value;
}
