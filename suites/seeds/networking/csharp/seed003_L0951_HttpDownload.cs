// perflab: {"seed": "003", "section": "Networking", "source": "003_ad73c16f882d0ef3.txt", "lines": "951-993", "categories": ["networking", "seed_csharp", "quick"], "group": "003 L951 HttpDownload", "fidelity": "faithful"}
// Extracted by scripts/extract_csharp_seeds.py from 003_ad73c16f882d0ef3.txt, lines 951-993 (seed 003, section Networking), unedited.
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

private HttpClient _client = new HttpClient();
private Socket _listener;
private Uri _uri;
[GlobalSetup]
public void Setup()
{
_listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
_listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
_listener.Listen(int.MaxValue);
var ep = (IPEndPoint)_listener.LocalEndPoint;
_uri = new Uri($"http://{ep.Address}:{ep.Port}");
Task.Run(async () =>
{
while (true)
{
Socket s = await _listener.AcceptAsync();
var ignored = Task.Run(async () =>
{
ReadOnlyMemory<byte> headers = Encoding.ASCII.GetBytes("HTTP/1.1 200 OK\r\nContent-Length: 10485760\r\n\r\n");
ReadOnlyMemory<byte> data = new byte[10*1024*1024]; // 10485760
using (var serverStream = new NetworkStream(s, true))
using (var reader = new StreamReader(serverStream))
{
while (true)
{
while (!string.IsNullOrEmpty(await reader.ReadLineAsync())) ;
await s.SendAsync(headers, SocketFlags.None);
await s.SendAsync(data, SocketFlags.None);
}
}
});
}
});
}
[Benchmark]
public async Task HttpDownload()
{
using (HttpResponseMessage r = await _client.GetAsync(_uri, HttpCompletionOption.ResponseHeadersRead))
using (Stream s = await r.Content.ReadAsStreamAsync())
{
await s.CopyToAsync(Stream.Null);
}
}
}
