// perflab's C# worker (protocol/PROTOCOL.md, version 2) for Mono: connects to the host, loads the
// benchmark assemblies the host built (one per source file, listed in PERFLAB_CSHARP_MANIFEST), and
// answers load/setup/run/teardown/bye. It only measures: the host decides everything else.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net.Sockets;
using System.Reflection;
using System.Text;

namespace Perflab.Worker
{
    public static class Program
    {
        public const int ProtocolVersion = 2;
        public static readonly string[] Stages = { "pilot", "warmup", "overhead", "workload", "diagnose" };

        public static int Main(string[] args)
        {
            var connect = Environment.GetEnvironmentVariable("PERFLAB_CONNECT");
            var token = Environment.GetEnvironmentVariable("PERFLAB_TOKEN") ?? "";
            if (string.IsNullOrEmpty(connect))
            {
                Console.Error.WriteLine("perflab C# worker: PERFLAB_CONNECT is not set (the worker is started by `perflab run`)");
                return 2;
            }
            int colon = connect.LastIndexOf(':');
            var client = new TcpClient();
            client.NoDelay = true;
            client.Connect(connect.Substring(0, colon), int.Parse(connect.Substring(colon + 1)));
            var stream = client.GetStream();
            var reader = new StreamReader(stream, new UTF8Encoding(false));
            var writer = new StreamWriter(stream, new UTF8Encoding(false)) { NewLine = "\n", AutoFlush = true };
            var worker = new Worker(writer, Environment.GetEnvironmentVariable("PERFLAB_CSHARP_MANIFEST"));
            // Environment.Exit in a benchmark: answer the pending request before the process goes
            AppDomain.CurrentDomain.ProcessExit += (sender, e) => worker.OnExit();
            worker.Send(worker.Hello(token));
            string line;
            while ((line = reader.ReadLine()) != null)
            {
                if (!worker.Handle(line)) break;
            }
            writer.Flush();
            client.Close();
            return 0;
        }
    }

    public sealed class Worker
    {
        readonly TextWriter output;
        readonly Dictionary<string, string> assemblies = new Dictionary<string, string>();   // source → dll
        readonly Dictionary<string, Dictionary<string, object>> buildErrors = new Dictionary<string, Dictionary<string, object>>();
        readonly Dictionary<string, List<object>> declared = new Dictionary<string, List<object>>();  // source → its [Benchmark]s read as text
        readonly Dictionary<string, BenchInfo> benchmarks = new Dictionary<string, BenchInfo>();
        readonly Func<long> allocatedBytes;
        readonly bool cpuClock;
        readonly bool codeSize = CodeSize.Available();
        Case current;
        object pending;          // the id of the request being answered (Environment.Exit answers it)
        bool answering;
        readonly object sendLock = new object();

        public Worker(TextWriter output, string manifest)
        {
            this.output = output;
            // count mode: no CPU clock (under valgrind a thread's CPU time is valgrind's, and may exceed wall time)
            cpuClock = !CountRegion.On && Clocks.HasThreadCpu();
            // GC.GetAllocatedBytesForCurrentThread: in Mono since 6.0, exact per-thread byte count
            var m = typeof(GC).GetMethod("GetAllocatedBytesForCurrentThread", Type.EmptyTypes);
            if (m != null) allocatedBytes = (Func<long>)Delegate.CreateDelegate(typeof(Func<long>), m);
            if (allocatedBytes != null && !CounterMoves(allocatedBytes)) allocatedBytes = null;
            if (!string.IsNullOrEmpty(manifest)) ReadManifest(manifest);
        }

        /// <summary>Does the counter see an allocation? Mono with the Boehm GC (mono-boehm) has the method
        /// but always answers 0: its figure would be a false "allocates nothing".</summary>
        static bool CounterMoves(Func<long> counter)
        {
            long before = counter();
            var probe = new byte[4096];
            long after = counter();
            GC.KeepAlive(probe);
            return after - before >= 4096;
        }

        void ReadManifest(string path)
        {
            var doc = (Dictionary<string, object>)Json.Parse(File.ReadAllText(path));
            foreach (Dictionary<string, object> f in (List<object>)doc["files"])
            {
                var src = (string)f["source"];
                object dll, err;
                if (f.TryGetValue("assembly", out dll) && dll != null) assemblies[src] = (string)dll;
                if (f.TryGetValue("error", out err) && err != null) buildErrors[src] = (Dictionary<string, object>)err;
                object listed;
                if (f.TryGetValue("benchmarks", out listed) && listed is List<object>) declared[src] = (List<object>)listed;
            }
        }

        public void Send(Dictionary<string, object> msg)
        {
            msg["v"] = (long)Program.ProtocolVersion;
            lock (sendLock)
            {
                answering = false;
                output.WriteLine(Json.Write(msg));
                output.Flush();
            }
        }

        /// <summary>The process is exiting (Environment.Exit) while a request awaits its reply.</summary>
        public void OnExit()
        {
            if (!answering) return;
            var msg = Error(pending, "exception", "Environment.Exit(" + Environment.ExitCode + ") called by the benchmark");
            if (current != null)
            {
                var err = (Dictionary<string, object>)msg["error"];
                err["file"] = current.Bench.File;
                err["line"] = (long)current.Bench.Line;
            }
            try { Send(msg); } catch (Exception) { }
        }

        public Dictionary<string, object> Hello(string token)
        {
            var runtime = new Dictionary<string, object>
            {
                { "name", "Mono" }, { "version", MonoVersion() }, { "executable", Executable() },
            };
            var caps = new List<object> { "gc", "with_overhead", "overhead_first" };
            if (allocatedBytes != null) caps.Insert(0, "alloc");
            if (codeSize) caps.Add("codesize");
            object cpu = cpuClock
                ? new Dictionary<string, object> { { "source", "clock_gettime(CLOCK_THREAD_CPUTIME_ID)" }, { "scope", "thread" },
                                                   { "resolution_ns", Clocks.ResolutionNs(true) } }
                : null;
            return new Dictionary<string, object>
            {
                { "type", "hello" }, { "token", token }, { "language", "csharp" }, { "runtime", runtime },
                { "clock", new Dictionary<string, object> { { "resolution_ns", Clocks.ResolutionNs(false) }, { "source", "clock_gettime(CLOCK_MONOTONIC)" } } },
                { "cpu_clock", cpu }, { "capabilities", caps }, { "pid", (long)System.Diagnostics.Process.GetCurrentProcess().Id },
            };
        }

        static string MonoVersion()
        {
            var t = Type.GetType("Mono.Runtime");
            var m = t == null ? null : t.GetMethod("GetDisplayName", BindingFlags.NonPublic | BindingFlags.Static);
            var s = m == null ? Environment.Version.ToString() : (string)m.Invoke(null, null);
            return s.Split(' ')[0];
        }

        static string Executable()
        {
            try { return System.Diagnostics.Process.GetCurrentProcess().MainModule.FileName; }
            catch (Exception) { return "mono"; }
        }

        /// <summary>Answers one request line; false after `bye` or a version error.</summary>
        public bool Handle(string line)
        {
            object parsed;
            try { parsed = Json.Parse(line); }
            catch (Exception e) { Send(Error(null, "protocol", "not a JSON object: " + e.Message)); return true; }
            var req = parsed as Dictionary<string, object>;
            if (req == null) { Send(Error(null, "protocol", "a request must be a JSON object")); return true; }
            object id;
            req.TryGetValue("id", out id);
            object v;
            if (!req.TryGetValue("v", out v) || !(v is long) || (long)v != Program.ProtocolVersion)
            {
                Send(Error(id, "version", "this worker speaks protocol version " + Program.ProtocolVersion + ", the request has v=" + Json.Write(v)));
                return false;
            }
            object type;
            req.TryGetValue("type", out type);
            pending = id;
            answering = true;
            try
            {
                switch (type as string)
                {
                    case "load": Send(Load(id, req)); return true;
                    case "setup": Send(Setup(id, req)); return true;
                    case "run": Send(Run(id, req)); return true;
                    case "teardown": Send(Teardown(id)); return true;
                    case "bye":
                        if (current != null) { try { current.GlobalCleanup(); } catch (Exception) { } current = null; }
                        Send(Reply(id, "done")); return false;
                    default: Send(Error(id, "protocol", "unknown request type " + Json.Write(type))); return true;
                }
            }
            catch (ProtocolException e) { Send(Error(id, e.Kind, e.Message)); }
            catch (NotFoundException e) { Send(Error(id, "not_found", e.Message)); }
            catch (BenchmarkException e) { Send(Failure(id, e.Original, e.Context)); }
            catch (TargetInvocationException e) { Send(Failure(id, e.InnerException ?? e)); }
            catch (Exception e) { Send(Failure(id, e)); }
            return true;
        }

        static Dictionary<string, object> Reply(object id, string type)
        {
            return new Dictionary<string, object> { { "id", id }, { "type", type } };
        }

        static Dictionary<string, object> Error(object id, string kind, string message)
        {
            var msg = Reply(id, "error");
            msg["error"] = new Dictionary<string, object> { { "kind", kind }, { "message", message } };
            return msg;
        }

        Dictionary<string, object> Failure(object id, Exception e, string context = "")
        {
            var msg = Error(id, "exception", context + e.GetType().Name + ": " + e.Message);
            var err = (Dictionary<string, object>)msg["error"];
            err["traceback"] = e.ToString();
            if (current != null) { err["file"] = current.Bench.File; err["line"] = (long)current.Bench.Line; }
            return msg;
        }

        // -- load ------------------------------------------------------------------------------------

        Dictionary<string, object> Load(object id, Dictionary<string, object> req)
        {
            object pathsObj;
            var paths = req.TryGetValue("paths", out pathsObj) ? pathsObj as List<object> : null;
            if (paths == null) throw new ProtocolException("protocol", "load needs a list of paths");
            var listed = new List<object>();
            var errors = new List<object>();
            foreach (string path in paths.OfType<string>())
            {
                Dictionary<string, object> buildError;
                List<object> names;
                if (buildErrors.TryGetValue(path, out buildError) && declared.TryGetValue(path, out names))
                {
                    // a corpus file that does not compile here: its benchmarks fail alone with the message
                    foreach (var b in Unavailable(path, names, (string)buildError["message"])) Add(b, listed);
                    continue;
                }
                if (buildError != null) { errors.Add(buildError); continue; }
                string dll;
                if (!assemblies.TryGetValue(path, out dll))
                {
                    errors.Add(LoadError(path, 0, "not built by the host (no entry in PERFLAB_CSHARP_MANIFEST)"));
                    continue;
                }
                try
                {
                    var asm = Assembly.LoadFrom(dll);
                    List<string> cats;
                    var meta = Header.Read(path, out cats);
                    foreach (var b in Discovery.Find(asm, path, meta, cats)) Add(b, listed);
                }
                catch (Exception e)
                {
                    var inner = e is TargetInvocationException && e.InnerException != null ? e.InnerException : e;
                    errors.Add(LoadError(path, 0, inner.GetType().Name + ": " + inner.Message));
                }
            }
            var msg = Reply(id, "loaded");
            msg["benchmarks"] = listed;
            msg["errors"] = errors;
            return msg;
        }

        void Add(BenchInfo b, List<object> listed)
        {
            var bid = b.Id;
            for (int k = 2; benchmarks.ContainsKey(bid); k++) bid = b.Id + "#" + k;  // overloads
            b.Id = bid;
            benchmarks[bid] = b;
            listed.Add(Describe(b));
        }

        static IEnumerable<BenchInfo> Unavailable(string path, List<object> names, string message)
        {
            List<string> cats;
            var meta = Header.Read(path, out cats);
            object group;
            meta.TryGetValue("group", out group);
            meta.Remove("group");
            var stem = Path.GetFileNameWithoutExtension(path);
            foreach (Dictionary<string, object> n in names)
            {
                var b = new BenchInfo
                {
                    Name = (string)n["name"], Line = (int)(long)n["line"], File = path,
                    Group = group as string ?? stem, Unavailable = "does not compile on this runtime: " + message,
                };
                b.Id = stem + ":" + b.Name;
                b.Categories.AddRange(cats);
                foreach (var kv in meta) b.Meta[kv.Key] = kv.Value;
                yield return b;
            }
        }

        static Dictionary<string, object> LoadError(string file, long line, string message)
        {
            return new Dictionary<string, object> { { "file", file }, { "line", line }, { "kind", "load" }, { "message", message } };
        }

        static Dictionary<string, object> Describe(BenchInfo b)
        {
            var d = new Dictionary<string, object>
            {
                { "id", b.Id }, { "name", b.Name }, { "group", b.Group }, { "file", b.File }, { "line", (long)b.Line },
                { "baseline", b.Baseline }, { "categories", b.Categories.Cast<object>().ToList() },
                { "ops_per_invoke", (long)b.OpsPerInvoke },
                { "params", b.Axes.Select(a => (object)new Dictionary<string, object> { { "name", a.Name }, { "values", a.Display.Cast<object>().ToList() } }).ToList() },
                { "description", b.Description }, { "meta", b.Meta },
            };
            if (b.IterationSetup) d["iteration_setup"] = true;
            return d;
        }

        // -- setup / teardown --------------------------------------------------------------------------

        Dictionary<string, object> Setup(object id, Dictionary<string, object> req)
        {
            object name;
            if (!req.TryGetValue("benchmark", out name) || !(name is string))
                throw new ProtocolException("protocol", "setup needs a benchmark id");
            BenchInfo b;
            if (!benchmarks.TryGetValue((string)name, out b)) throw new NotFoundException("no benchmark '" + name + "'");
            if (b.Unavailable != null) throw new ProtocolException("load", b.Unavailable);
            var indices = new Dictionary<string, long>();
            object p;
            if (req.TryGetValue("params", out p) && p is Dictionary<string, object>)
                foreach (var kv in (Dictionary<string, object>)p)
                {
                    if (!(kv.Value is long)) throw new ProtocolException("protocol", "parameter index of '" + kv.Key + "' is not an integer");
                    if (!b.Axes.Any(a => a.Name == kv.Key)) throw new NotFoundException(b.Name + " has no parameter '" + kv.Key + "'");
                    indices[kv.Key] = (long)kv.Value;
                }
            if (current != null) { var old = current; current = null; old.GlobalCleanup(); }
            var c = new Case(b, indices);
            current = c;
            return Reply(id, "ready");
        }

        Dictionary<string, object> Teardown(object id)
        {
            if (current == null) throw new ProtocolException("state", "teardown before setup");
            var c = current;
            c.GlobalCleanup();
            current = null;
            return Reply(id, "done");
        }

        // -- run -------------------------------------------------------------------------------------

        static long Positive(Dictionary<string, object> req, string key)
        {
            object v;
            if (!req.TryGetValue(key, out v) || !(v is long) || (long)v < 1)
                throw new ProtocolException("protocol", "run needs a positive integer '" + key + "'");
            return (long)v;
        }

        Dictionary<string, object> Run(object id, Dictionary<string, object> req)
        {
            object stageObj;
            req.TryGetValue("stage", out stageObj);
            var stage = stageObj as string;
            if (stage == null || Array.IndexOf(Program.Stages, stage) < 0)
                throw new ProtocolException("protocol", "unknown stage " + Json.Write(stageObj));
            long invocations = Positive(req, "invocations"), iterations = Positive(req, "iterations");
            object wo;
            bool withOverhead = req.TryGetValue("with_overhead", out wo) && wo is bool && (bool)wo;
            if (withOverhead && stage != "workload")
                throw new ProtocolException("protocol", "with_overhead is only for the workload stage");
            // overhead_first: the overhead iteration before its workload one (the second of a request
            // is the one a loaded machine preempts; the host puts each side second alike)
            object of;
            bool overheadFirst = withOverhead && req.TryGetValue("overhead_first", out of) && of is bool && (bool)of;
            if (current == null) throw new ProtocolException("state", "run before setup");
            if (stage == "diagnose") return Diagnose(id, invocations, iterations);

            var c = current;
            var loop = stage == "overhead" ? c.Overhead : c.Loop;
            var ns = new long[iterations];
            var cpu = new long[iterations];
            var overNs = withOverhead ? new long[iterations] : null;
            var overCpu = withOverhead ? new long[iterations] : null;
            Action iterate = () =>
            {
                for (long it = 0; it < iterations; it++)
                {
                    if (overheadFirst) Time(c.Overhead, invocations, out overNs[it], out overCpu[it]);
                    c.BeforeIteration();
                    Time(loop, invocations, out ns[it], out cpu[it]);
                    c.AfterIteration();
                    if (withOverhead && !overheadFirst) Time(c.Overhead, invocations, out overNs[it], out overCpu[it]);
                }
            };
            if (CountRegion.On) CountRegion.Run(iterate);  // count mode: all iterations in one marker call
            else iterate();
            var msg = Reply(id, "samples");
            msg["stage"] = stage;
            msg["invocations"] = invocations;
            msg["ns"] = ns;
            if (withOverhead) msg["overhead_ns"] = overNs;
            if (cpuClock)
            {
                msg["cpu_ns"] = cpu;
                if (withOverhead) msg["overhead_cpu_ns"] = overCpu;
            }
            return msg;
        }

        /// <summary>One iteration: CPU clock just outside the wall clock, nothing else in between.</summary>
        void Time(Action<long> loop, long invocations, out long ns, out long cpuNs)
        {
            long c0 = cpuClock ? Clocks.ThreadCpuNs() : 0;
            long t0 = Clocks.NowNs();
            loop(invocations);
            long t1 = Clocks.NowNs();
            long c1 = cpuClock ? Clocks.ThreadCpuNs() : 0;
            ns = Math.Max(0, t1 - t0);
            cpuNs = Math.Max(0, c1 - c0);
        }

        Dictionary<string, object> Diagnose(object id, long invocations, long iterations)
        {
            var c = current;
            var gc0 = new long[] { GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2) };
            long alloc = 0;
            for (long it = 0; it < iterations; it++)
            {
                c.BeforeIteration();
                long a0 = allocatedBytes != null ? allocatedBytes() : 0;
                c.Loop(invocations);
                long a1 = allocatedBytes != null ? allocatedBytes() : 0;
                alloc += a1 - a0;
                c.AfterIteration();
            }
            var gc = new long[] { GC.CollectionCount(0) - gc0[0], GC.CollectionCount(1) - gc0[1], GC.CollectionCount(2) - gc0[2] };
            var msg = Reply(id, "diagnostics");
            msg["invocations"] = invocations;
            msg["iterations"] = iterations;
            msg["alloc_bytes"] = allocatedBytes != null ? (object)Math.Max(0, alloc) : null;
            msg["allocs"] = null;
            msg["gc"] = gc;
            var size = codeSize && c.Bench.Method != null ? CodeSize.Of(c.Bench.Method) : null;
            msg["code_size"] = size.HasValue ? (object)size.Value : null;
            var notes = new List<object>();
            if (allocatedBytes == null) notes.Add("allocated bytes unknown: this Mono's GC.GetAllocatedBytesForCurrentThread is missing or does not count (the Boehm GC answers 0)");
            if (!codeSize) notes.Add("code size: interpreted (--interpreter): the benchmark has no native code");
            else if (size.HasValue) notes.Add("code size: the [Benchmark] method's own native code (Mono's JIT info), not its callees'");
            msg["notes"] = notes;
            return msg;
        }
    }

    public sealed class ProtocolException : Exception
    {
        public readonly string Kind;
        public ProtocolException(string kind, string message) : base(message) { Kind = kind; }
    }

    /// <summary>The `// perflab: {json}` header comment of a benchmark file: meta and categories
    /// (how the seed corpus tags files it copied verbatim).</summary>
    public static class Header
    {
        public static Dictionary<string, object> Read(string path, out List<string> categories)
        {
            var meta = new Dictionary<string, object>();
            categories = new List<string>();
            foreach (var raw in File.ReadLines(path))
            {
                var line = raw.Trim();
                if (line.Length == 0) continue;
                if (!line.StartsWith("//")) break;
                var body = line.Substring(2).Trim();
                if (!body.StartsWith("perflab:")) continue;
                var doc = Json.Parse(body.Substring("perflab:".Length)) as Dictionary<string, object>;
                if (doc == null) continue;
                foreach (var kv in doc)
                {
                    if (kv.Key == "categories" && kv.Value is List<object>) categories.AddRange(((List<object>)kv.Value).OfType<string>());
                    else meta[kv.Key] = kv.Value is string ? kv.Value : Json.Write(kv.Value);
                }
            }
            return meta;
        }
    }
}
