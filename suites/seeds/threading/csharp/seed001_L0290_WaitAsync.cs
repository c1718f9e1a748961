// perflab: {"seed": "001", "section": "Tasks", "source": "001_9ac5802aee04f6ed.txt", "lines": "290-311", "categories": ["threading", "seed_csharp"], "group": "001 L290 WaitAsync", "fidelity": "faithful"}
// Extracted by scripts/extract_csharp_seeds.py from 001_9ac5802aee04f6ed.txt, lines 290-311 (seed 001, section Tasks), unedited.
// A whole program, as the seed shows it.
// dotnet run -c Release -f net7.0 --filter "*" --runtimes net7.0 net8.0
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Running;
BenchmarkSwitcher.FromAssembly(typeof(Tests).Assembly).Run(args);
[HideColumns("Error", "StdDev", "Median", "RatioSD")]
[MemoryDiagnoser(displayGenColumns: false)]
public class Tests
{
private readonly CancellationToken _token = new CancellationTokenSource().Token;
private readonly SemaphoreSlim _sem = new SemaphoreSlim(0);
private readonly Task[] _tasks = new Task[100];
[Benchmark]
public Task WaitAsync()
{
for (int i = 0; i < _tasks.Length; i++)
{
_tasks[i] = _sem.WaitAsync(_token);
}
_sem.Release(_tasks.Length);
return Task.WhenAll(_tasks);
}
}
