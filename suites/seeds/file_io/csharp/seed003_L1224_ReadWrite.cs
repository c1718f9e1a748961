// perflab: {"seed": "003", "section": "System.IO", "source": "003_ad73c16f882d0ef3.txt", "lines": "1224-1270", "categories": ["file_io", "seed_csharp"], "group": "003 L1224 ReadWrite", "fidelity": "faithful"}
// Extracted by scripts/extract_csharp_seeds.py from 003_ad73c16f882d0ef3.txt, lines 1224-1270 (seed 003, section System.IO), unedited.
// A member snippet: pasted into seed 003's Program class as the seed instructs. Left out of its usings (absent from Mono): System.Collections.Immutable, System.IO.Pipelines, System.Threading.Channels.
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.CsProj;
using Microsoft.Win32.SafeHandles;
using System;
using System.Buffers;
using System.Collections;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics;
using System.Drawing;
using System.Drawing.Drawing2D;
using System.Globalization;
using System.IO;
using System.IO.Compression;
using System.Linq;
using System.Net;
using System.Net.Http;
using System.Net.NetworkInformation;
using System.Net.Security;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Security.Authentication;
using System.Security.Cryptography.X509Certificates;
using System.Text;
using System.Text.RegularExpressions;
using System.Threading;
using System.Threading.Tasks;
using System.Xml;

[MemoryDiagnoser]
public class Program
{
    static void Main(string[] args) => BenchmarkSwitcher.FromTypes(new[] { typeof(Program) }).Run(args);

// Run with: dotnet run -c Release -f netcoreapp2.1 --filter *Program*
private sealed class Config : ManualConfig // also add [Config(typeof(Config))] to the Program class
{
public Config()
{
Add(Job.MediumRun.With(CsProjCoreToolchain.NetCoreApp21).WithNuGet("System.IO.Pipelines", "4.5.0").WithId("4.5.0"));
Add(Job.MediumRun.With(CsProjCoreToolchain.NetCoreApp30).WithNuGet("System.IO.Pipelines", "4.6.0-preview5.19224.8").WithId("4.6.0-preview5.19224.8"));
}
}
private readonly Pipe _pipe1 = new Pipe();
private readonly Pipe _pipe2 = new Pipe();
private byte[] _buffer = new byte[1024];
[GlobalSetup]
public void Setup()
{
Task.Run(async () =>
{
var reader = _pipe2.Reader;
var writer = _pipe1.Writer;
while (true)
{
ReadResult rr = await reader.ReadAsync();
foreach (ReadOnlyMemory<byte> mem in rr.Buffer)
{
await writer.WriteAsync(mem);
}
reader.AdvanceTo(rr.Buffer.End);
}
});
}
[Benchmark]
public async Task ReadWrite()
{
var reader = _pipe1.Reader;
var writer = _pipe2.Writer;
for (int i = 0; i < 1000; i++)
{
await writer.WriteAsync(_buffer);
long count = 0;
while (count < _buffer.Length)
{
ReadResult rr = await reader.ReadAsync();
count += rr.Buffer.Length;
reader.AdvanceTo(rr.Buffer.End);
}
}
}
}
