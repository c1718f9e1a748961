// perflab: {"seed": "001", "section": "Tasks", "source": "001_9ac5802aee04f6ed.txt", "lines": "382-401", "categories": ["threading", "seed_csharp"], "group": "001 L382 WhenAnyGeneric_ListNotCompleted", "fidelity": "faithful"}
// Extracted by scripts/extract_csharp_seeds.py from 001_9ac5802aee04f6ed.txt, lines 382-401 (seed 001, section Tasks), unedited.
// A whole program, as the seed shows it.
// dotnet run -c Release -f net7.0 --filter "*" --runtimes net7.0 net8.0
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Running;
using System.Runtime.CompilerServices;
BenchmarkSwitcher.FromAssembly(typeof(Tests).Assembly).Run(args);
[HideColumns("Error", "StdDev", "Median", "RatioSD")]
[MemoryDiagnoser(displayGenColumns: false)]
public class Tests
{
[Benchmark]
public Task<Task<int>> WhenAnyGeneric_ListNotCompleted()
{
AsyncTaskMethodBuilder<int> atmb1 = default;
AsyncTaskMethodBuilder<int> atmb2 = default;
AsyncTaskMethodBuilder<int> atmb3 = default;
Task<Task<int>> wa = Task.WhenAny(new List<Task<int>>() { atmb1.Task, atmb2.Task, atmb3.Task });
atmb3.SetResult(42);
return wa;
}
}
