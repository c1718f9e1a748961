// BenchmarkDotNet's public surface, as far as benchmark classes touch it, so a class written for
// BenchmarkDotNet compiles unedited against perflab's C# worker. Compiled into an assembly named
// BenchmarkDotNet.dll. The worker honours: Benchmark (Baseline, Description, OperationsPerInvoke),
// Params, ParamsSource, ParamsAllValues, Arguments, ArgumentsSource, GlobalSetup/GlobalCleanup and
// IterationSetup/IterationCleanup (Target/Targets), BenchmarkCategory. MemoryDiagnoser is always on
// (perflab measures allocations in its own diagnose stage). Every other attribute is accepted and
// listed in the benchmark's meta as ignored: perflab's host decides how long and how often to run.
using System;
using System.Runtime.CompilerServices;

namespace BenchmarkDotNet.Attributes
{
    [AttributeUsage(AttributeTargets.Method)]
    public class BenchmarkAttribute : Attribute
    {
        public BenchmarkAttribute([CallerLineNumber] int sourceCodeLineNumber = 0,
                                  [CallerFilePath] string sourceCodeFile = "")
        {
            SourceCodeLineNumber = sourceCodeLineNumber;
            SourceCodeFile = sourceCodeFile;
        }
        public string Description { get; set; }
        public bool Baseline { get; set; }
        public int OperationsPerInvoke { get; set; } = 1;
        public int SourceCodeLineNumber { get; private set; }
        public string SourceCodeFile { get; private set; }
    }

    [AttributeUsage(AttributeTargets.Field | AttributeTargets.Property)]
    public class ParamsAttribute : Attribute
    {
        public ParamsAttribute(params object[] values) { Values = values ?? new object[] { null }; }
        public object[] Values { get; private set; }
        public int Priority { get; set; }
    }

    [AttributeUsage(AttributeTargets.Field | AttributeTargets.Property)]
    public class ParamsSourceAttribute : Attribute
    {
        public ParamsSourceAttribute(string name) { Name = name; }
        public string Name { get; private set; }
        public int Priority { get; set; }
    }

    [AttributeUsage(AttributeTargets.Field | AttributeTargets.Property)]
    public class ParamsAllValuesAttribute : Attribute
    {
        public int Priority { get; set; }
    }

    [AttributeUsage(AttributeTargets.Method, AllowMultiple = true)]
    public class ArgumentsAttribute : Attribute
    {
        public ArgumentsAttribute() { Values = new object[0]; }
        public ArgumentsAttribute(params object[] values) { Values = values ?? new object[] { null }; }
        public object[] Values { get; private set; }
        public int Priority { get; set; }
    }

    [AttributeUsage(AttributeTargets.Method)]
    public class ArgumentsSourceAttribute : Attribute
    {
        public ArgumentsSourceAttribute(string name) { Name = name; }
        public string Name { get; private set; }
        public int Priority { get; set; }
    }

    /// <summary>Base of the four setup/cleanup attributes: Target/Targets name the benchmarks they apply to.</summary>
    public abstract class TargetedAttribute : Attribute
    {
        public string Target { get; set; }
        public string[] Targets { get; set; }
        public bool Match(string method)
        {
            if (Targets != null && Targets.Length > 0) return Array.IndexOf(Targets, method) >= 0;
            return string.IsNullOrEmpty(Target) || Target == method;
        }
    }

    [AttributeUsage(AttributeTargets.Method)] public class GlobalSetupAttribute : TargetedAttribute { }
    [AttributeUsage(AttributeTargets.Method)] public class GlobalCleanupAttribute : TargetedAttribute { }
    [AttributeUsage(AttributeTargets.Method)] public class IterationSetupAttribute : TargetedAttribute { }
    [AttributeUsage(AttributeTargets.Method)] public class IterationCleanupAttribute : TargetedAttribute { }

    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Method | AttributeTargets.Assembly, AllowMultiple = true)]
    public class BenchmarkCategoryAttribute : Attribute
    {
        public BenchmarkCategoryAttribute(params string[] categories) { Categories = categories ?? new string[0]; }
        public string[] Categories { get; private set; }
    }

    /// <summary>Every attribute below is accepted for compatibility; the worker reports it as ignored.</summary>
    public abstract class IgnoredConfigAttribute : Attribute { }

    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)]
    public class MemoryDiagnoserAttribute : IgnoredConfigAttribute
    {
        public MemoryDiagnoserAttribute(bool displayGenColumns = true) { DisplayGenColumns = displayGenColumns; }
        public bool DisplayGenColumns { get; private set; }
    }

    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)]
    public class DisassemblyDiagnoserAttribute : IgnoredConfigAttribute
    {
        public DisassemblyDiagnoserAttribute(int maxDepth = 1, bool printSource = false,
            bool printInstructionAddresses = false, bool exportGithubMarkdown = true, bool exportHtml = false,
            bool exportCombinedDisassemblyReport = false, bool exportDiff = false) { MaxDepth = maxDepth; }
        public int MaxDepth { get; private set; }
    }

    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly, AllowMultiple = true)]
    public class SimpleJobAttribute : IgnoredConfigAttribute
    {
        public SimpleJobAttribute(int launchCount = -1, int warmupCount = -1, int iterationCount = -1,
            int invocationCount = -1, string id = null, bool baseline = false) { }
        public SimpleJobAttribute(BenchmarkDotNet.Engines.RunStrategy runStrategy, int launchCount = -1,
            int warmupCount = -1, int iterationCount = -1, int invocationCount = -1, string id = null,
            bool baseline = false) { }
        public SimpleJobAttribute(BenchmarkDotNet.Jobs.RuntimeMoniker runtimeMoniker, int launchCount = -1,
            int warmupCount = -1, int iterationCount = -1, int invocationCount = -1, string id = null,
            bool baseline = false) { }
        public SimpleJobAttribute(BenchmarkDotNet.Engines.RunStrategy runStrategy,
            BenchmarkDotNet.Jobs.RuntimeMoniker runtimeMoniker, int launchCount = -1, int warmupCount = -1,
            int iterationCount = -1, int invocationCount = -1, string id = null, bool baseline = false) { }
    }

    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)]
    public class ConfigAttribute : IgnoredConfigAttribute
    {
        public ConfigAttribute(Type type) { Type = type; }
        public Type Type { get; private set; }
    }

    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)]
    public class HideColumnsAttribute : IgnoredConfigAttribute
    {
        public HideColumnsAttribute(params string[] names) { }
        public HideColumnsAttribute(params BenchmarkDotNet.Columns.Column[] columns) { }
    }

    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)]
    public class OrdererAttribute : IgnoredConfigAttribute
    {
        public OrdererAttribute(BenchmarkDotNet.Order.SummaryOrderPolicy summaryOrderPolicy = BenchmarkDotNet.Order.SummaryOrderPolicy.Default,
            BenchmarkDotNet.Order.MethodOrderPolicy methodOrderPolicy = BenchmarkDotNet.Order.MethodOrderPolicy.Declared) { }
    }

    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)]
    public class GroupBenchmarksByAttribute : IgnoredConfigAttribute
    {
        public GroupBenchmarksByAttribute(params BenchmarkDotNet.Configs.BenchmarkLogicalGroupRule[] rules) { }
    }

    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)]
    public class CategoriesColumnAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)]
    public class AnyCategoriesFilterAttribute : IgnoredConfigAttribute { public AnyCategoriesFilterAttribute(params string[] c) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)]
    public class AllCategoriesFilterAttribute : IgnoredConfigAttribute { public AllCategoriesFilterAttribute(params string[] c) { } }

    // Columns
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class RankColumnAttribute : IgnoredConfigAttribute { public RankColumnAttribute(BenchmarkDotNet.Mathematics.NumeralSystem system = BenchmarkDotNet.Mathematics.NumeralSystem.Arabic) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class MinColumnAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class MaxColumnAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class MeanColumnAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class MedianColumnAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class StdDevColumnAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class StdErrorColumnAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class Q1ColumnAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class Q3ColumnAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class AllStatisticsColumnAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class IterationsColumnAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class OperationsPerSecondAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class BaselineColumnAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class LogicalGroupColumnAttribute : IgnoredConfigAttribute { }

    // Diagnosers, exporters, validators
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class ThreadingDiagnoserAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class ExceptionDiagnoserAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class InliningDiagnoserAttribute : IgnoredConfigAttribute { public InliningDiagnoserAttribute(bool logFailuresOnly = true, bool filterByNamespace = true) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class TailCallDiagnoserAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class EventPipeProfilerAttribute : IgnoredConfigAttribute { public EventPipeProfilerAttribute(object profile = null) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class NativeMemoryProfilerAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class MarkdownExporterAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class MarkdownExporterAttribute_GitHub : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class HtmlExporterAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class CsvExporterAttribute : IgnoredConfigAttribute { public CsvExporterAttribute(object style = null) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class JsonExporterAttribute : IgnoredConfigAttribute { public JsonExporterAttribute(string fileNameSuffix = "", bool indentJson = false, bool excludeMeasurements = false) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class RPlotExporterAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class ReturnValueValidatorAttribute : IgnoredConfigAttribute { public ReturnValueValidatorAttribute(bool failOnError = false) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class ExecutionValidatorAttribute : IgnoredConfigAttribute { public ExecutionValidatorAttribute(bool failOnError = false) { } }

    // Jobs and run characteristics (perflab's host decides these)
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class ShortRunJobAttribute : IgnoredConfigAttribute { public ShortRunJobAttribute() { } public ShortRunJobAttribute(BenchmarkDotNet.Jobs.RuntimeMoniker m) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class MediumRunJobAttribute : IgnoredConfigAttribute { public MediumRunJobAttribute() { } public MediumRunJobAttribute(BenchmarkDotNet.Jobs.RuntimeMoniker m) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class LongRunJobAttribute : IgnoredConfigAttribute { public LongRunJobAttribute() { } public LongRunJobAttribute(BenchmarkDotNet.Jobs.RuntimeMoniker m) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class VeryLongRunJobAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class DryJobAttribute : IgnoredConfigAttribute { public DryJobAttribute() { } public DryJobAttribute(BenchmarkDotNet.Jobs.RuntimeMoniker m) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class InProcessAttribute : IgnoredConfigAttribute { public InProcessAttribute(bool dontLogOutput = false) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class WarmupCountAttribute : IgnoredConfigAttribute { public WarmupCountAttribute(int n) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class MinWarmupCountAttribute : IgnoredConfigAttribute { public MinWarmupCountAttribute(int n, bool forceAutoWarmup = false) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class MaxWarmupCountAttribute : IgnoredConfigAttribute { public MaxWarmupCountAttribute(int n, bool forceAutoWarmup = false) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class IterationCountAttribute : IgnoredConfigAttribute { public IterationCountAttribute(int n) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class MinIterationCountAttribute : IgnoredConfigAttribute { public MinIterationCountAttribute(int n) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class MaxIterationCountAttribute : IgnoredConfigAttribute { public MaxIterationCountAttribute(int n) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class InvocationCountAttribute : IgnoredConfigAttribute { public InvocationCountAttribute(int invocationCount, int unrollFactor = 1) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class IterationTimeAttribute : IgnoredConfigAttribute { public IterationTimeAttribute(double milliseconds) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class UnrollFactorAttribute : IgnoredConfigAttribute { public UnrollFactorAttribute(int n) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class RunOncePerIterationAttribute : IgnoredConfigAttribute { }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class EvaluateOverheadAttribute : IgnoredConfigAttribute { public EvaluateOverheadAttribute(bool value = true) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class OutliersAttribute : IgnoredConfigAttribute { public OutliersAttribute(object mode) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class GcServerAttribute : IgnoredConfigAttribute { public GcServerAttribute(bool value = false) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class GcConcurrentAttribute : IgnoredConfigAttribute { public GcConcurrentAttribute(bool value = true) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class GcForceAttribute : IgnoredConfigAttribute { public GcForceAttribute(bool value = true) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class KeepBenchmarkFilesAttribute : IgnoredConfigAttribute { public KeepBenchmarkFilesAttribute(bool value = true) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class StopOnFirstErrorAttribute : IgnoredConfigAttribute { public StopOnFirstErrorAttribute(bool value = true) { } }
    [AttributeUsage(AttributeTargets.Class | AttributeTargets.Assembly)] public class DisableOptimizationsValidatorAttribute : IgnoredConfigAttribute { }
}

namespace BenchmarkDotNet.Configs
{
    public interface IConfig { }
    public enum ConfigOptions { Default = 0, KeepBenchmarkFiles = 1, JoinSummary = 2, DisableOptimizationsValidator = 4, DontOverwriteResults = 8, DisableLogFile = 16, LogBuildOutput = 32, GenerateMSBuildBinLog = 64, StopOnFirstError = 128 }
    public enum BenchmarkLogicalGroupRule { ByMethod, ByJob, ByParams, ByCategory }
    /// <summary>A configuration object that perflab accepts and ignores: the host decides runs.</summary>
    public class ManualConfig : IConfig
    {
        public static ManualConfig Create(IConfig config) { return new ManualConfig(); }
        public static ManualConfig CreateEmpty() { return new ManualConfig(); }
        public static ManualConfig CreateMinimumViable() { return new ManualConfig(); }
        public ManualConfig AddJob(params object[] jobs) { return this; }
        public ManualConfig AddColumn(params object[] columns) { return this; }
        public ManualConfig AddColumnProvider(params object[] providers) { return this; }
        public ManualConfig AddDiagnoser(params object[] diagnosers) { return this; }
        public ManualConfig AddExporter(params object[] exporters) { return this; }
        public ManualConfig AddLogger(params object[] loggers) { return this; }
        public ManualConfig AddValidator(params object[] validators) { return this; }
        public ManualConfig HideColumns(params object[] columns) { return this; }
        public ManualConfig WithOptions(ConfigOptions options) { return this; }
        public ManualConfig WithOption(ConfigOptions option, bool value) { return this; }
        public ManualConfig WithSummaryStyle(object style) { return this; }
        public ManualConfig WithOrderer(object orderer) { return this; }
        public ManualConfig WithArtifactsPath(string path) { return this; }
        public ManualConfig AddFilter(params object[] filters) { return this; }
        public ManualConfig AddLogicalGroupRules(params BenchmarkLogicalGroupRule[] rules) { return this; }
        public ManualConfig With(params object[] things) { return this; }
        public void Add(params object[] things) { }
    }
    public class DefaultConfig : ManualConfig { public static readonly DefaultConfig Instance = new DefaultConfig(); }
    public static class ConfigExtensions
    {
        public static ManualConfig AddJob(this IConfig config, params object[] jobs) { return new ManualConfig(); }
        public static ManualConfig AddDiagnoser(this IConfig config, params object[] diagnosers) { return new ManualConfig(); }
        public static ManualConfig AddColumn(this IConfig config, params object[] columns) { return new ManualConfig(); }
        public static ManualConfig HideColumns(this IConfig config, params object[] columns) { return new ManualConfig(); }
        public static ManualConfig WithOptions(this IConfig config, ConfigOptions options) { return new ManualConfig(); }
        public static ManualConfig WithSummaryStyle(this IConfig config, object style) { return new ManualConfig(); }
    }
}

namespace BenchmarkDotNet.Running
{
    using System.Reflection;
    /// <summary>So a seed's `Main` compiles; perflab's worker has its own entry point and never calls these.</summary>
    public class BenchmarkSwitcher
    {
        public static BenchmarkSwitcher FromAssembly(Assembly assembly) { return new BenchmarkSwitcher(); }
        public static BenchmarkSwitcher FromAssemblies(Assembly[] assemblies) { return new BenchmarkSwitcher(); }
        public static BenchmarkSwitcher FromTypes(Type[] types) { return new BenchmarkSwitcher(); }
        public object Run(string[] args = null, BenchmarkDotNet.Configs.IConfig config = null) { return NotHere(); }
        public object RunAll(BenchmarkDotNet.Configs.IConfig config = null) { return NotHere(); }
        public object RunAllJoined(BenchmarkDotNet.Configs.IConfig config = null) { return NotHere(); }
        internal static object NotHere()
        {
            throw new NotSupportedException("BenchmarkDotNet's runner is not part of perflab: run `perflab run FILE.cs --runtimes mono`");
        }
    }
    public static class BenchmarkRunner
    {
        public static object Run<T>(BenchmarkDotNet.Configs.IConfig config = null, string[] args = null) { return BenchmarkSwitcher.NotHere(); }
        public static object Run(Type type, BenchmarkDotNet.Configs.IConfig config = null, string[] args = null) { return BenchmarkSwitcher.NotHere(); }
        public static object Run(Type[] types, BenchmarkDotNet.Configs.IConfig config = null, string[] args = null) { return BenchmarkSwitcher.NotHere(); }
        public static object Run(Assembly assembly, BenchmarkDotNet.Configs.IConfig config = null, string[] args = null) { return BenchmarkSwitcher.NotHere(); }
    }
}

namespace BenchmarkDotNet.Engines
{
    public enum RunStrategy { Throughput, ColdStart, Monitoring }
    /// <summary>BenchmarkDotNet's Consumer: a sink the JIT cannot see through (volatile stores).</summary>
#pragma warning disable 0414 // the sink's fields are written, never read: that is the point
    public class Consumer
    {
        private volatile int _int; private volatile object _obj; private long _long; private double _double;
        public void Consume(int value) { _int = value; }
        public void Consume(bool value) { _int = value ? 1 : 0; }
        public void Consume(long value) { System.Threading.Volatile.Write(ref _long, value); }
        public void Consume(double value) { System.Threading.Volatile.Write(ref _double, value); }
        public void Consume(object value) { _obj = value; }
        public void Consume<T>(T value) { _obj = value; }
    }
#pragma warning restore 0414
    public static class ConsumerExtensions
    {
        public static void Consume<T>(this System.Collections.Generic.IEnumerable<T> source, Consumer consumer)
        {
            foreach (var item in source) consumer.Consume(item);
        }
    }
}

namespace BenchmarkDotNet.Jobs
{
    public enum RuntimeMoniker { HostProcess, NotRecognized, Mono, Net461, Net462, Net47, Net471, Net472, Net48, Net481, NetCoreApp20, NetCoreApp21, NetCoreApp22, NetCoreApp30, NetCoreApp31, NetCoreApp50, Net50, Net60, Net70, Net80, Net90, CoreRt20, CoreRt21, CoreRt22, CoreRt30, CoreRt31, CoreRt50, CoreRt60, NativeAot60, NativeAot70, NativeAot80, Wasm, WasmNet50, WasmNet60, MonoAOTLLVM, Mono60, Mono70, Mono80 }
    public class Job
    {
        public static readonly Job Default = new Job(), Dry = new Job(), ShortRun = new Job(), MediumRun = new Job(), LongRun = new Job(), VeryLongRun = new Job(), InProcess = new Job();
        public Job WithRuntime(object runtime) { return this; }
        public Job WithId(string id) { return this; }
        public Job WithBaseline(bool baseline) { return this; }
        public Job WithWarmupCount(int n) { return this; }
        public Job WithIterationCount(int n) { return this; }
        public Job WithInvocationCount(int n) { return this; }
        public Job WithUnrollFactor(int n) { return this; }
        public Job WithLaunchCount(int n) { return this; }
        public Job WithToolchain(object toolchain) { return this; }
        public Job WithEnvironmentVariables(params object[] vars) { return this; }
        public Job WithGcServer(bool value) { return this; }
        public Job WithGcConcurrent(bool value) { return this; }
        public Job WithGcForce(bool value) { return this; }
        public Job WithMinIterationCount(int n) { return this; }
        public Job WithMaxIterationCount(int n) { return this; }
        public Job WithStrategy(BenchmarkDotNet.Engines.RunStrategy s) { return this; }
        public Job AsBaseline() { return this; }
        public Job WithArguments(params object[] args) { return this; }
    }
}

namespace BenchmarkDotNet.Environments
{
    public abstract class Runtime { }
    public class CoreRuntime : Runtime { public static readonly CoreRuntime Core31 = new CoreRuntime(), Core50 = new CoreRuntime(), Core60 = new CoreRuntime(), Core70 = new CoreRuntime(), Core80 = new CoreRuntime(); }
    public class ClrRuntime : Runtime { public static readonly ClrRuntime Net48 = new ClrRuntime(), Net472 = new ClrRuntime(), Net461 = new ClrRuntime(); }
    public class MonoRuntime : Runtime { public static readonly MonoRuntime Default = new MonoRuntime(); }
}

namespace BenchmarkDotNet.Columns
{
    public enum Column { Job, Namespace, Type, Method, Params, Runtime, Mean, Error, StdDev, StdErr, Median, Min, Max, Q1, Q3, Ratio, RatioSD, Allocated, AllocRatio, Gen0, Gen1, Gen2, Rank, Iterations, Op_s, BuildConfiguration, Arguments }
    public static class StatisticColumn { public static readonly object Mean = null, StdDev = null, Median = null, Min = null, Max = null, P95 = null, OperationsPerSecond = null; }
    public static class BaselineRatioColumn { public static readonly object RatioMean = null; }
    public static class RankColumn { public static readonly object Arabic = null, Roman = null, Stars = null; }
}

namespace BenchmarkDotNet.Diagnosers
{
    public class MemoryDiagnoser { public static readonly MemoryDiagnoser Default = new MemoryDiagnoser(); }
    public class ThreadingDiagnoser { public static readonly ThreadingDiagnoser Default = new ThreadingDiagnoser(); }
    public class DisassemblyDiagnoser { public DisassemblyDiagnoser(DisassemblyDiagnoserConfig config) { } }
    public class DisassemblyDiagnoserConfig { public DisassemblyDiagnoserConfig(int maxDepth = 1, bool printSource = false, bool printInstructionAddresses = false, bool exportGithubMarkdown = true, bool exportHtml = false, bool exportCombinedDisassemblyReport = false, bool exportDiff = false) { } }
    public class MemoryDiagnoserConfig { public MemoryDiagnoserConfig(bool displayGenColumns = true) { } }
}

namespace BenchmarkDotNet.Order
{
    public enum SummaryOrderPolicy { Default, FastestToSlowest, SlowestToFastest, Method, Declared }
    public enum MethodOrderPolicy { Declared, Alphabetical }
    public class DefaultOrderer { public DefaultOrderer(SummaryOrderPolicy s = SummaryOrderPolicy.Default, MethodOrderPolicy m = MethodOrderPolicy.Declared) { } }
}

namespace BenchmarkDotNet.Reports
{
    public class Summary { }
    public class SummaryStyle
    {
        public static readonly SummaryStyle Default = new SummaryStyle(null, true, null, null);
        public SummaryStyle(System.Globalization.CultureInfo cultureInfo, bool printUnitsInHeader, object sizeUnit, object timeUnit, bool printUnitsInContent = true, bool printZeroValuesInContent = false, int maxParameterColumnWidth = 20, object ratioStyle = null) { }
        public SummaryStyle WithRatioStyle(object style) { return this; }
        public SummaryStyle WithTimeUnit(object unit) { return this; }
        public SummaryStyle WithSizeUnit(object unit) { return this; }
        public SummaryStyle WithMaxParameterColumnWidth(int width) { return this; }
    }
}

namespace BenchmarkDotNet.Columns { public enum RatioStyle { Value, Percentage, Trend } public class SizeUnit { public static readonly SizeUnit B = new SizeUnit(), KB = new SizeUnit(), MB = new SizeUnit(); } }
namespace BenchmarkDotNet.Mathematics { public enum NumeralSystem { Arabic, Roman, Stars } }
namespace BenchmarkDotNet.Loggers { public class ConsoleLogger { public static readonly ConsoleLogger Default = new ConsoleLogger(); } }
namespace BenchmarkDotNet.Exporters { public class MarkdownExporter { public static readonly MarkdownExporter GitHub = new MarkdownExporter(), Default = new MarkdownExporter(); } }
namespace BenchmarkDotNet.Exporters.Csv { public class CsvExporter { public static readonly CsvExporter Default = new CsvExporter(); } }
namespace BenchmarkDotNet.Validators { public class JitOptimizationsValidator { public static readonly JitOptimizationsValidator FailOnError = new JitOptimizationsValidator(); } }
namespace BenchmarkDotNet.Toolchains { public interface IToolchain { } }
namespace BenchmarkDotNet.Toolchains.CsProj { public class CsProjCoreToolchain : BenchmarkDotNet.Toolchains.IToolchain { public static readonly CsProjCoreToolchain NetCoreApp21 = new CsProjCoreToolchain(), NetCoreApp30 = new CsProjCoreToolchain(), NetCoreApp31 = new CsProjCoreToolchain(); } public class CsProjClassicNetToolchain : BenchmarkDotNet.Toolchains.IToolchain { public static readonly CsProjClassicNetToolchain Net48 = new CsProjClassicNetToolchain(); } }
namespace BenchmarkDotNet.Toolchains.InProcess.Emit { public class InProcessEmitToolchain : BenchmarkDotNet.Toolchains.IToolchain { public static readonly InProcessEmitToolchain Instance = new InProcessEmitToolchain(); } }
namespace BenchmarkDotNet.Filters { public class AnyCategoriesFilter { public AnyCategoriesFilter(params string[] c) { } } }
namespace BenchmarkDotNet.Analysers { public class EnvironmentAnalyser { } }
namespace BenchmarkDotNet.Horology { public enum TimeUnitKind { Nanosecond } }
namespace Perfolizer.Horology { public class TimeUnit { public static readonly TimeUnit Nanosecond = new TimeUnit(), Microsecond = new TimeUnit(), Millisecond = new TimeUnit(), Second = new TimeUnit(); } }
namespace Perfolizer.Mathematics.OutlierDetection { public enum OutlierMode { DontRemove, RemoveUpper, RemoveLower, RemoveAll } }
