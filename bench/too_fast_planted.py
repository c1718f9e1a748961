"""What perflab prints for a loop whose result is discarded, in every language (issue #38, item 4).

Each language gets one benchmark file with two variants of the same loop, summing a buffer (64 KiB;
4 KiB in CPython, which is 100x slower a byte): `sunk` hands its sum to the harness (returned, or
DoNotOptimize), `discarded` throws it away. Where the language's harness API declares bytes (Go
`b.SetBytes`, Google Benchmark `SetBytesProcessed`, criterion's Throughput through perflab's Rust
rate), both declare the buffer's size; there a third, `partly`, returns a checksum of the buffer's
first 16 bytes and drops the sum of the whole (the call keeps some work of its own). The script runs each file with the short job and prints each
variant's mean, discarded/sunk, and the notes perflab gave it about dead work ("far too fast",
"indistinguishable from an empty benchmark"); plus the load average before each run.

    nice -n 19 .venv/bin/python bench/too_fast_planted.py [--languages python,go]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import perflab_run, write_bench  # noqa: E402

FILES = {
    "python": {"bench_planted.py": """
        import perflab
        BUF = bytes(range(256)) * 16  # 4 KiB

        @perflab.benchmark
        def sunk():
            s = 0
            for c in BUF:
                s += c
            return s

        @perflab.benchmark
        def discarded():
            s = 0
            for c in BUF:
                s += c
        """},
    "node": {"planted.bench.mjs": """
        import { bench } from 'perflab';
        const buf = new Uint8Array(65536).map((_, i) => (i * 31 + 7) & 255);
        bench('sunk', () => { let s = 0; for (let i = 0; i < buf.length; i++) s += buf[i]; return s; });
        bench('discarded', () => { let s = 0; for (let i = 0; i < buf.length; i++) s += buf[i]; });
        """},
    "go": {"go.mod": "module example.com/planted\n\ngo 1.21\n",
           "planted.go": "package planted\n",
           "planted_test.go": """
        package planted

        import "testing"

        var buf = func() []byte {
        	b := make([]byte, 65536)
        	for i := range b {
        		b[i] = byte(i*31 + 7)
        	}
        	return b
        }()

        var sink int

        func BenchmarkSunk(b *testing.B) {
        	b.SetBytes(int64(len(buf)))
        	for i := 0; i < b.N; i++ {
        		s := 0
        		for _, c := range buf {
        			s += int(c)
        		}
        		sink = s
        	}
        }

        func BenchmarkDiscarded(b *testing.B) {
        	b.SetBytes(int64(len(buf)))
        	for i := 0; i < b.N; i++ {
        		s := 0
        		for _, c := range buf {
        			s += int(c)
        		}
        		_ = s
        	}
        }
        """},
    "java": {"PlantedBench.java": """
        import perflab.Benchmark;

        public class PlantedBench {
            byte[] buf = new byte[65536];
            { for (int i = 0; i < buf.length; i++) buf[i] = (byte) (i * 31 + 7); }

            @Benchmark
            public int sunk() { int s = 0; for (byte c : buf) s += c; return s; }

            @Benchmark
            public void discarded() { int s = 0; for (byte c : buf) s += c; }
        }
        """},
    "rust": {"Cargo.toml": """
        [package]
        name = "planted"
        version = "0.1.0"
        edition = "2021"
        publish = false
        autobenches = false

        [dependencies]
        """,
             "src/lib.rs": "",
             "benches/planted.rs": """
        use perflab::{Bencher, Registry};

        fn buffer() -> Vec<u8> { (0..65536u32).map(|i| (i * 31 + 7) as u8).collect() }

        fn sunk(b: &mut Bencher) {
            let buf = buffer();
            b.__rate("Throughput", 65536.0, "B", 1024); // criterion's Throughput::Bytes(65536)
            b.iter(move || { let mut s = 0u64; for &c in buf.iter() { s += c as u64; } s });
        }

        #[allow(unused_variables, unused_assignments)]
        fn discarded(b: &mut Bencher) {
            let buf = buffer();
            b.__rate("Throughput", 65536.0, "B", 1024);
            b.iter(move || { let mut s = 0u64; for &c in buf.iter() { s += c as u64; } });
        }

        // the header's checksum is returned, the body's sum dropped: the call keeps some work
        #[allow(unused_variables, unused_assignments)]
        fn partly(b: &mut Bencher) {
            let buf = buffer();
            b.__rate("Throughput", 65536.0, "B", 1024);
            b.iter(move || {
                let mut h = 0u64;
                for &c in buf[..16].iter() { h = h.wrapping_mul(31).wrapping_add(c as u64); }
                let mut s = 0u64;
                for &c in buf.iter() { s += c as u64; }
                h
            });
        }

        pub fn register(r: &mut Registry) {
            r.bench("sunk", sunk);
            r.bench("discarded", discarded);
            r.bench("partly", partly);
        }
        """},
    "cpp": {"planted_bench.cpp": """
        #include <benchmark/benchmark.h>
        #include <cstdint>
        #include <vector>

        static std::vector<unsigned char> buf = [] {
            std::vector<unsigned char> b(65536);
            for (size_t i = 0; i < b.size(); ++i) b[i] = (unsigned char)(i * 31 + 7);
            return b;
        }();

        static void BM_Sunk(benchmark::State& st) {
            for (auto _ : st) {
                unsigned s = 0;
                for (unsigned char c : buf) s += c;
                benchmark::DoNotOptimize(s);
            }
            st.SetBytesProcessed(st.iterations() * int64_t(buf.size()));
        }
        BENCHMARK(BM_Sunk);

        static void BM_Discarded(benchmark::State& st) {
            for (auto _ : st) {
                unsigned s = 0;
                for (unsigned char c : buf) s += c;
                (void)s;
            }
            st.SetBytesProcessed(st.iterations() * int64_t(buf.size()));
        }
        BENCHMARK(BM_Discarded);

        // the header's checksum is sunk, the body's sum dropped: the call keeps some work
        static void BM_Partly(benchmark::State& st) {
            for (auto _ : st) {
                unsigned h = 0;
                for (size_t i = 0; i < 16; ++i) h = h * 31 + buf[i];
                unsigned s = 0;
                for (unsigned char c : buf) s += c;
                (void)s;
                benchmark::DoNotOptimize(h);
            }
            st.SetBytesProcessed(st.iterations() * int64_t(buf.size()));
        }
        BENCHMARK(BM_Partly);

        BENCHMARK_MAIN();
        """},
    "csharp": {"Planted.cs": """
        using BenchmarkDotNet.Attributes;

        public class Planted
        {
            private byte[] _buf;

            [GlobalSetup]
            public void Setup()
            {
                _buf = new byte[65536];
                for (int i = 0; i < _buf.Length; i++) _buf[i] = (byte)(i * 31 + 7);
            }

            [Benchmark]
            public int Sunk() { int s = 0; foreach (var c in _buf) s += c; return s; }

            [Benchmark]
            public void Discarded() { int s = 0; foreach (var c in _buf) s += c; }
        }
        """},
}
DEAD = ("far too fast", "indistinguishable from an empty")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--languages", default=",".join(FILES))
    ap.add_argument("--job", default="short")
    args = ap.parse_args()
    print("uptime:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    for lang in args.languages.split(","):
        folder = Path(tempfile.mkdtemp(prefix=f"perflab-planted-{lang}-"))
        for name, src in FILES[lang].items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            write_bench(folder, name, src)
        before = " ".join(f"{x:.2f}" for x in os.getloadavg())
        doc, _ = perflab_run(folder, "--job", args.job, "--store", "none")
        means = {}
        print(f"== {lang} (load {before})")
        for c in doc["cases"]:
            name = c["benchmark"]["name"].lower().replace("bm_", "")
            est = c.get("estimate") or {}
            means[name] = est.get("mean")
            mean = f"{est['mean']:.4g} ns" if est else (c.get("error") or c["status"])
            print(f"  {name:10} mean {mean}" + (f"  [{est['ci_low']:.4g}, {est['ci_high']:.4g}]" if est else ""))
            for w in c.get("warnings") or []:
                if w.startswith(DEAD):
                    print(f"    note: {w}")
            if not any(w.startswith(DEAD) for w in c.get("warnings") or []):
                print("    note: (none about dead work)")
        if means.get("sunk") and means.get("discarded") is not None:
            print(f"  discarded/sunk = {means['discarded'] / means['sunk']:.3f}")


if __name__ == "__main__":
    main()
