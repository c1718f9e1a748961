// perflab: {"seed": "001", "section": "Tasks", "source": "001_9ac5802aee04f6ed.txt", "lines": "176-186", "categories": ["threading", "seed_csharp"], "group": "001 L176 YieldOnce", "fidelity": "faithful"}
// Extracted by scripts/extract_csharp_seeds.py from 001_9ac5802aee04f6ed.txt, lines 176-186 (seed 001, section Tasks), unedited.
// A whole program, as the seed shows it.
// dotnet run -c Release -f net7.0 --filter "*" --runtimes net7.0 net8.0
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Running;
BenchmarkSwitcher.FromAssembly(typeof(Tests).Assembly).Run(args);
[HideColumns("Error", "StdDev", "Median", "RatioSD")]
[MemoryDiagnoser(displayGenColumns: false)]
public class Tests
{
[Benchmark]
public async Task YieldOnce() => await Task.Yield();
}
