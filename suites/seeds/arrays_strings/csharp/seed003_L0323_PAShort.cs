// perflab: {"seed": "003", "section": "Arrays and Strings", "source": "003_ad73c16f882d0ef3.txt", "lines": "323-323", "categories": ["arrays_strings", "seed_csharp"], "group": "003 L323 PAShort", "fidelity": "faithful"}
// Extracted by scripts/extract_csharp_seeds.py from 003_ad73c16f882d0ef3.txt, lines 323-323 (seed 003, section Arrays and Strings), unedited.
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

private readonly PhysicalAddress _short = new PhysicalAddress(new byte[1] { 42 }); private readonly PhysicalAddress _long = new PhysicalAddress(Enumerable.Range(0, 256).Select(i => (byte)i).ToArray()); [Benchmark] public void PAShort() => _short.ToString(); [Benchmark] public void PALong() => _long.ToString();
}
