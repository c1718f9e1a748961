// perflab: {"seed": "003", "section": "Span and Friends", "source": "003_ad73c16f882d0ef3.txt", "lines": "115-115", "categories": ["arrays_strings", "seed_csharp"], "group": "003 L115 LoopVectors", "fidelity": "faithful", "shared_from": ["101-101"]}
// Extracted by scripts/extract_csharp_seeds.py from 003_ad73c16f882d0ef3.txt, lines 115-115 (seed 003, section Span and Friends), unedited.
// A member snippet: pasted into seed 003's Program class as the seed instructs. Left out of its usings (absent from Mono): System.Collections.Immutable, System.IO.Pipelines, System.Threading.Channels. Members it uses that the seed declares in the same class's other snippet(s) (lines 101-101) come first, unchanged.
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

private byte[] _buffer = new byte[10_000].Concat(new byte[] { 42 }).ToArray();

[Benchmark] public int LoopVectors() { byte[] buffer = _buffer; int remainingStart = 0; if (Vector.IsHardwareAccelerated) { while (remainingStart <= buffer.Length - Vector<byte>.Count) { var vector = new Vector<byte>(buffer, remainingStart); if (!Vector.EqualsAll(vector, default)) { break; } remainingStart += Vector<byte>.Count; } } for (int i = remainingStart; i < buffer.Length; i++) { if (buffer[i] != 0) return i; } return -1; }
}
