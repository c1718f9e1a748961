package fileio

// Seed 000 (".NET 6": IO), ported to Go: reading a 10 MB file with a 1 KiB user buffer through a
// stream buffer of 1 (none) or 4096 bytes, synchronously and with every read on its own goroutine
// (ReadAsync; the seed's IsAsync axis has no Go counterpart), File.WriteAllText(Async) of 100 000
// characters, and stream compression (Brotli is not in Go's standard library: compress/flate at
// BestSpeed, CompressionLevel.Fastest, on generated English text instead of the seed's downloaded
// alice29.txt).

import (
	"bufio"
	"compress/flate"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"strings"

	"perflab.dev/go/perflab"
)

func meta000() map[string]string { return map[string]string{"seed": "000", "section": "IO"} }

// fidelity000 adds how faithful the port is (suites/seeds/README.md, "Fidelity").
func fidelity000(f string) map[string]string {
	m := meta000()
	m["fidelity"] = f
	return m
}

// state000 is the case's folder and, for the Read benchmarks, the stream opened once per case
// (the seed's GlobalSetup); each call rewinds it and reads to the end.
var state000 struct {
	dir  string
	f    *os.File
	r    io.Reader     // f, or br over f
	br   *bufio.Reader // nil for BufferSize 1
	buf  []byte
	path string
}

func setupStream(p map[string]string) {
	dir, err := os.MkdirTemp("", "perflab-seed000-io-")
	must(err)
	path := filepath.Join(dir, "data.bin")
	data := make([]byte, 10000000)
	_, _ = rand.New(rand.NewSource(42)).Read(data) // new Random(42).NextBytes
	must(os.WriteFile(path, data, 0o600))
	f, err := os.Open(path)
	must(err)
	state000.dir, state000.f, state000.r, state000.br = dir, f, f, nil
	state000.buf = make([]byte, kib)
	// BufferSize 1 ↔ no buffer (FileStream disables its buffer for sizes 0 and 1)
	if size := atoi(p, "BufferSize"); size > 1 {
		state000.br = bufio.NewReaderSize(f, size)
		state000.r = state000.br
	}
}

func teardown000() {
	if state000.f != nil {
		_ = state000.f.Close()
	}
	if state000.dir != "" {
		_ = os.RemoveAll(state000.dir)
	}
	state000.dir, state000.f, state000.r, state000.br, state000.buf = "", nil, nil, nil, nil
}

// readToEnd rewinds the stream and reads it to the end in 1 KiB reads (async: each read on its own
// goroutine, awaited on a channel).
func readToEnd(async bool) int64 {
	_, err := state000.f.Seek(0, io.SeekStart)
	must(err)
	if state000.br != nil {
		state000.br.Reset(state000.f)
	}
	r, buf := state000.r, state000.buf
	var done chan ioResult
	if async {
		done = make(chan ioResult, 1)
	}
	var total int64
	for {
		n, err := readOnce(r, buf, done)
		total += int64(n)
		if err == io.EOF {
			return total
		}
		must(err)
	}
}

func streamRead(async bool) func(map[string]string) func(int) {
	return func(p map[string]string) func(int) {
		setupStream(p)
		return func(n int) {
			var total int64
			for i := 0; i < n; i++ {
				total += readToEnd(async)
			}
			perflab.Sink(total)
		}
	}
}

// contents: 100 000 characters, written as UTF-8 (the string → []byte conversion is the encoding).
var contents = func() string {
	var sb strings.Builder
	for i := 0; i < 100000; i++ {
		sb.WriteByte(byte('a' + i%26))
	}
	return sb.String()
}()

func writeAllText(async bool) func(map[string]string) func(int) {
	return func(map[string]string) func(int) {
		dir, err := os.MkdirTemp("", "perflab-seed000-io-")
		must(err)
		state000.dir = dir
		path := filepath.Join(dir, "text.txt")
		write := func() error { return os.WriteFile(path, []byte(contents), 0o644) }
		if !async {
			return func(n int) {
				for i := 0; i < n; i++ {
					must(write())
				}
			}
		}
		done := make(chan error, 1)
		return func(n int) {
			for i := 0; i < n; i++ {
				go func() { done <- write() }()
				must(<-done)
			}
		}
	}
}

// aliceText is n bytes of English-like words (a stand-in for alice29.txt, which the seed downloads).
func aliceText(n int) []byte {
	words := strings.Fields("alice was beginning to get very tired of sitting by her sister on the bank and of " +
		"having nothing to do once or twice she had peeped into the book her sister was " +
		"reading but it had no pictures or conversations in it")
	rnd := rand.New(rand.NewSource(29))
	var sb strings.Builder
	for sb.Len() < n {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(words[rnd.Intn(len(words))])
	}
	return []byte(sb.String()[:n])
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

func init() {
	perflab.Register(perflab.Benchmark{Name: "Read", ID: "Read_000", Group: "FileStreamRead",
		Categories: []string{"file_io"}, Meta: fidelity000("faithful"),
		Description: "Rewind the stream opened once per case and read it to the end in 1 KiB reads",
		Params:      []perflab.Axis{{Name: "BufferSize", Values: []string{"1", "4096"}}},
		Setup:       streamRead(false), Teardown: teardown000})
	perflab.Register(perflab.Benchmark{Name: "ReadAsync", ID: "ReadAsync_000", Group: "FileStreamRead",
		Categories: []string{"file_io"}, Meta: fidelity000("partial: no async file API; every 1 KiB read runs on a goroutine, where .NET serves 3 in 4 from its 4 KiB buffer"),
		Description: "As Read, every read on a goroutine of its own, awaited on a channel",
		Params:      []perflab.Axis{{Name: "BufferSize", Values: []string{"1", "4096"}}},
		Setup:       streamRead(true), Teardown: teardown000})
	perflab.Register(perflab.Benchmark{Name: "WriteAllTextAsync", Group: "WriteAllText",
		Categories: []string{"file_io"}, Meta: fidelity000("faithful"),
		Description: "os.WriteFile of 100 000 characters as UTF-8 on a goroutine, awaited",
		Setup:       writeAllText(true), Teardown: teardown000})
	perflab.Register(perflab.Benchmark{Name: "WriteAllText", Group: "WriteAllText",
		Categories: []string{"file_io"}, Meta: map[string]string{"extra": "true", "related": "000 · IO"},
		Description: "os.WriteFile of 100 000 characters as UTF-8",
		Setup:       writeAllText(false), Teardown: teardown000})
	text := aliceText(152089)
	perflab.Register(perflab.Benchmark{Name: "Compress", Group: "Compression",
		Categories: []string{"file_io"}, Meta: fidelity000("different: compress/flate at BestSpeed instead of Brotli (no Brotli in Go's std), on generated text instead of alice29.txt"),
		Description: "152 089 bytes of text (the size of alice29.txt) through a new flate.Writer at BestSpeed",
		Fn: func(n int) {
			var out countingWriter
			for i := 0; i < n; i++ {
				w, err := flate.NewWriter(&out, flate.BestSpeed)
				must(err)
				_, err = w.Write(text)
				must(err)
				must(w.Close())
			}
			perflab.Sink(out.n)
		}})
}
