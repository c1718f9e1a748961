// Native tests of the C# worker: drives Worker.Handle with protocol lines, as the host would, and
// checks the replies. Run by workers/csharp/test.sh; exits non-zero on the first failure.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Perflab.Worker;

public static class SelfTest
{
    static StringWriter output;
    static Worker worker;
    static int next;

    static Dictionary<string, object> Ask(string json)
    {
        output.GetStringBuilder().Clear();
        worker.Handle(json.Replace("ID", (++next).ToString()));
        var line = output.ToString().Trim();
        return (Dictionary<string, object>)Json.Parse(line);
    }

    static void Check(bool ok, string what)
    {
        if (!ok) { Console.Error.WriteLine("FAIL: " + what); Environment.Exit(1); }
        Console.WriteLine("ok   " + what);
    }

    static string Id(List<object> benchmarks, string name)
    {
        return (string)((Dictionary<string, object>)benchmarks.First(b => (string)((Dictionary<string, object>)b)["name"] == name))["id"];
    }

    public static int Main(string[] args)
    {
        string source = args[0], dll = args[1], broken = args[2];
        var manifest = Path.GetTempFileName();
        File.WriteAllText(manifest, Json.Write(new Dictionary<string, object> { { "files", new List<object> {
            new Dictionary<string, object> { { "source", source }, { "assembly", dll } },
            new Dictionary<string, object> { { "source", broken }, { "error", new Dictionary<string, object> {
                { "file", broken }, { "line", 3L }, { "kind", "load" }, { "message", "mcs: broken" } } } } } } }));
        output = new StringWriter();
        worker = new Worker(output, manifest);

        var hello = worker.Hello("tok");
        Check((string)hello["language"] == "csharp" && ((List<object>)hello["capabilities"]).Contains("alloc"), "hello lists alloc");
        Check(hello["cpu_clock"] != null, "hello declares a thread CPU clock");

        var loaded = Ask("{\"v\":2,\"id\":ID,\"type\":\"load\",\"paths\":[\"" + source + "\",\"" + broken + "\"]}");
        var benchmarks = (List<object>)loaded["benchmarks"];
        var errors = (List<object>)loaded["errors"];
        Check(benchmarks.Count == 8, "eight benchmarks found, got " + benchmarks.Count);
        Check(errors.Count == 1 && (long)((Dictionary<string, object>)errors[0])["line"] == 3, "the broken file is a load error with its line");
        var sum = (Dictionary<string, object>)benchmarks.First(b => (string)((Dictionary<string, object>)b)["name"] == "Sum");
        Check((bool)sum["baseline"] && (long)sum["ops_per_invoke"] == 4, "Baseline and OperationsPerInvoke");
        Check(((List<object>)sum["categories"]).Contains("selftest"), "BenchmarkCategory on the class");
        Check(((Dictionary<string, object>)sum["meta"])["bdn_ignored"].ToString() == "MemoryDiagnoser", "MemoryDiagnoser reported as ignored");
        var axes = (List<object>)((Dictionary<string, object>)benchmarks.First(b => (string)((Dictionary<string, object>)b)["name"] == "WithArguments"))["params"];
        var args2 = (Dictionary<string, object>)axes[1];
        Check((string)args2["name"] == "number, name" && string.Join("|", (List<object>)args2["values"]) == "1, one|2, two", "Arguments rows are one axis");

        Check((string)Ask("{\"v\":2,\"id\":ID,\"type\":\"setup\",\"benchmark\":\"" + Id(benchmarks, "Sum") + "\",\"params\":{\"N\":1}}")["type"] == "ready", "setup with N=5");
        Check(SelfTestBench.GlobalSetups == 1, "GlobalSetup ran once, not the targeted one");
        var samples = Ask("{\"v\":2,\"id\":ID,\"type\":\"run\",\"stage\":\"workload\",\"invocations\":100,\"iterations\":3,\"with_overhead\":true}");
        Check(((List<object>)samples["ns"]).Count == 3 && ((List<object>)samples["overhead_ns"]).Count == 3
              && ((List<object>)samples["cpu_ns"]).Count == 3, "workload with overhead: three of each");
        Check(((List<object>)hello["capabilities"]).Contains("overhead_first"), "hello announces overhead_first");
        var first = Ask("{\"v\":2,\"id\":ID,\"type\":\"run\",\"stage\":\"workload\",\"invocations\":100,\"iterations\":2,\"with_overhead\":true,\"overhead_first\":true}");
        Check(((List<object>)first["ns"]).Count == 2 && ((List<object>)first["overhead_ns"]).Count == 2, "overhead first: two of each");

        Ask("{\"v\":2,\"id\":ID,\"type\":\"setup\",\"benchmark\":\"" + Id(benchmarks, "Targeted") + "\",\"params\":{}}");
        Check(SelfTestBench.GlobalSetups == 102 && SelfTestBench.Cleanups == 1, "the targeted GlobalSetup ran; the previous case was cleaned up");

        Ask("{\"v\":2,\"id\":ID,\"type\":\"setup\",\"benchmark\":\"" + Id(benchmarks, "Allocate") + "\",\"params\":{}}");
        var diag = Ask("{\"v\":2,\"id\":ID,\"type\":\"run\",\"stage\":\"diagnose\",\"invocations\":10,\"iterations\":1}");
        Check((long)diag["alloc_bytes"] >= 10000 && (long)diag["alloc_bytes"] < 12000, "10 × new byte[1000] ≈ 10 KB allocated, got " + diag["alloc_bytes"]);
        Check(((List<object>)diag["gc"]).Count == 3, "three GC generations counted");
        bool jit = ((List<object>)hello["capabilities"]).Contains("codesize");
        Check(jit ? diag["code_size"] is long && (long)diag["code_size"] > 0 : diag["code_size"] == null,
              "code size known under the JIT, unknown under the interpreter: " + diag["code_size"]);

        int before = SelfTestBench.IterationSetups;
        Ask("{\"v\":2,\"id\":ID,\"type\":\"setup\",\"benchmark\":\"" + Id(benchmarks, "PerIteration") + "\",\"params\":{}}");
        Ask("{\"v\":2,\"id\":ID,\"type\":\"run\",\"stage\":\"workload\",\"invocations\":1,\"iterations\":4}");
        Check(SelfTestBench.IterationSetups == before + 4, "IterationSetup ran once per iteration");

        Ask("{\"v\":2,\"id\":ID,\"type\":\"setup\",\"benchmark\":\"" + Id(benchmarks, "WithArguments") + "\",\"params\":{\"N\":0,\"number, name\":1}}");
        Check((string)Ask("{\"v\":2,\"id\":ID,\"type\":\"run\",\"stage\":\"pilot\",\"invocations\":5,\"iterations\":1}")["type"] == "samples", "arguments converted (int 2L → long) and passed");
        Ask("{\"v\":2,\"id\":ID,\"type\":\"setup\",\"benchmark\":\"" + Id(benchmarks, "Awaited") + "\",\"params\":{}}");
        Check((string)Ask("{\"v\":2,\"id\":ID,\"type\":\"run\",\"stage\":\"workload\",\"invocations\":5,\"iterations\":1}")["type"] == "samples", "a Task is awaited");

        Ask("{\"v\":2,\"id\":ID,\"type\":\"setup\",\"benchmark\":\"" + Id(benchmarks, "Throws") + "\",\"params\":{}}");
        var err = (Dictionary<string, object>)Ask("{\"v\":2,\"id\":ID,\"type\":\"run\",\"stage\":\"workload\",\"invocations\":1,\"iterations\":1}")["error"];
        Check((string)err["kind"] == "exception" && (string)err["message"] == "InvalidOperationException: selftest boom", "an exception is the benchmark's error");
        var bad = (Dictionary<string, object>)Ask("{\"v\":2,\"id\":ID,\"type\":\"setup\",\"benchmark\":\"" + Id(benchmarks, "Sum") + "\",\"params\":{\"N\":7}}")["error"];
        Check((string)bad["kind"] == "not_found", "a parameter index out of range is not_found");
        Console.WriteLine("all C# worker self-tests passed");
        return 0;
    }
}
