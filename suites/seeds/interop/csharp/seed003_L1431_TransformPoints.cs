// perflab: {"seed": "003", "section": "Interop", "source": "003_ad73c16f882d0ef3.txt", "lines": "1431-1460", "categories": ["interop", "seed_csharp"], "group": "003 L1431 TransformPoints", "fidelity": "faithful"}
// Extracted by scripts/extract_csharp_seeds.py from 003_ad73c16f882d0ef3.txt, lines 1431-1460 (seed 003, section Interop), unedited.
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
Add(Job.MediumRun.With(CsProjCoreToolchain.NetCoreApp21).WithNuGet("System.Drawing.Common", "4.5.1").WithId("4.5.1"));
Add(Job.MediumRun.With(CsProjCoreToolchain.NetCoreApp30).WithNuGet("System.Drawing.Common", "4.6.0-preview5.19224.8").WithId("4.6.0-preview5.19224.8"));
}
}
private Bitmap _image;
private Graphics _graphics;
private Point[] _points;
[GlobalSetup]
public void Setup()
{
_image = new Bitmap(100, 100);
_graphics = Graphics.FromImage(_image);
_points = new[]
{
new Point(10, 10), new Point(20, 1), new Point(35, 5), new Point(50, 10),
new Point(60, 15), new Point(65, 25), new Point(50, 30)
};
}
[Benchmark]
public void TransformPoints()
{
_graphics.TransformPoints(CoordinateSpace.World, CoordinateSpace.Page, _points);
_graphics.TransformPoints(CoordinateSpace.Device, CoordinateSpace.World, _points);
_graphics.TransformPoints(CoordinateSpace.Page, CoordinateSpace.Device, _points);
}
}
