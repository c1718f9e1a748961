package fileio

// Seed 002 "File IO improvements in .NET 6", ported to Go's os, bufio and io packages.
//
// Every benchmark is named after the seed's method and keeps its workload and parameters:
// the seed's (fileSize, userBufferSize) rows (rwGrid below). The seed's stream buffer
// (4096 bytes) ↔ a bufio.Reader/bufio.Writer of 4096 bytes over the *os.File; the seed's
// *_NoBuffering (bufferSize 1) ↔ the *os.File itself (one read(2)/write(2) per call). Go has no
// asynchronous file API: the "Async" forms run every read or write on a goroutine of its own and
// wait for it on a channel — what .NET does on Unix (a blocking call on a thread-pool thread). The
// 100 MiB cases are in category "large" only. Files live in a temporary folder made by each case's
// setup and removed by its teardown.

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"perflab.dev/go/perflab"
)

const (
	kib     = 1024
	mib     = 1024 * 1024
	fourKiB = 4096
	seed002 = "002"
)

// state002 is the case's temporary folder, its source file (fileSize bytes) and the user buffer.
var state002 struct {
	dir, src, dst string
	buf           []byte
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func atoi(p map[string]string, name string) int {
	v, err := strconv.Atoi(p[name])
	must(err)
	return v
}

func meta002(section string) map[string]string {
	return map[string]string{"seed": seed002, "section": section}
}

// with adds how faithful the port is (suites/seeds/README.md, "Fidelity"); none means not audited.
func with(meta map[string]string, fidelity string) map[string]string {
	out := map[string]string{"fidelity": fidelity}
	for k, v := range meta {
		out[k] = v
	}
	return out
}

// extra002 tags a benchmark that is not a method of the seed: no seed tags, so no claim is checked.
func extra002(section string) map[string]string {
	return map[string]string{"extra": "true", "related": seed002 + " · " + section}
}

const smallFile = "partial: 10 MB instead of the seed's 100 MB (same 16000-byte writes; the 100 MB case is in `large`)"

// setup002 makes the case's folder and a fileSize-byte source file (bytes 0..255 repeated).
func setup002(fileSize, userBufferSize int) {
	dir, err := os.MkdirTemp("", "perflab-seed002-")
	must(err)
	src := filepath.Join(dir, "source.bin")
	chunk := make([]byte, mib)
	for i := range chunk {
		chunk[i] = byte(i)
	}
	f, err := os.Create(src)
	must(err)
	for left := fileSize; left > 0; left -= len(chunk) {
		_, err = f.Write(chunk[:min(left, len(chunk))])
		must(err)
	}
	must(f.Close())
	state002.dir, state002.src, state002.dst = dir, src, filepath.Join(dir, "destination.bin")
	state002.buf = make([]byte, userBufferSize)
}

func teardown002() {
	if state002.dir != "" {
		_ = os.RemoveAll(state002.dir)
	}
	state002.dir, state002.buf = "", nil
}

// -- Seek/Position ------------------------------------------------------------------------------

var seekAxes = []perflab.Axis{{Name: "fileSize", Values: []string{"1024"}},
	{Name: "buffering", Values: []string{"4096", "0"}}}

// seekAll opens the source file and seeks to every offset (from the start, or from the end). With
// a stream buffer, a seek in Go is f.Seek followed by discarding the bufio.Reader's contents (Reset).
func seekAll(fileSize, buffering int, fromEnd bool) {
	f, err := os.Open(state002.src)
	must(err)
	defer f.Close()
	var br *bufio.Reader
	if buffering > 0 {
		br = bufio.NewReaderSize(f, buffering)
	}
	for off := 0; off < fileSize; off++ {
		if fromEnd {
			_, err = f.Seek(int64(-off-1), io.SeekEnd)
		} else {
			_, err = f.Seek(int64(off), io.SeekStart)
		}
		must(err)
		if br != nil {
			br.Reset(f)
		}
	}
}

func seekBench(fromEnd bool) func(p map[string]string) func(int) {
	return func(p map[string]string) func(int) {
		fileSize, buffering := atoi(p, "fileSize"), atoi(p, "buffering")
		setup002(fileSize, fourKiB)
		return func(n int) {
			for i := 0; i < n; i++ {
				seekAll(fileSize, buffering, fromEnd)
			}
		}
	}
}

// -- Length -------------------------------------------------------------------------------------

func getLength(p map[string]string) func(int) {
	setup002(kib, fourKiB)
	fstat := p["how"] == "fstat"
	return func(n int) {
		var length int64
		for i := 0; i < n; i++ {
			f, err := os.Open(state002.src)
			must(err)
			for k := 0; k < kib; k++ {
				if fstat {
					fi, err := f.Stat()
					must(err)
					length = fi.Size()
				} else {
					pos, err := f.Seek(0, io.SeekCurrent)
					must(err)
					length, err = f.Seek(0, io.SeekEnd)
					must(err)
					_, err = f.Seek(pos, io.SeekStart)
					must(err)
				}
			}
			must(f.Close())
		}
		perflab.Sink(length)
	}
}

// -- Read & Write, ReadAsync & WriteAsync ---------------------------------------------------------

type ioResult struct {
	n   int
	err error
}

// readOnce is one user-buffer read: straight, or (done != nil) run on its own goroutine and awaited
// on `done` — the shape of awaiting a ReadAsync. Shared by seeds 000 and 002.
func readOnce(r io.Reader, buf []byte, done chan ioResult) (int, error) {
	if done == nil {
		return r.Read(buf)
	}
	go func() {
		n, err := r.Read(buf)
		done <- ioResult{n, err}
	}()
	res := <-done
	return res.n, res.err
}

// readAll reads the whole source file into the user buffer, through a bufio.Reader of `buffering`
// bytes (0: straight from the *os.File). async: each Read runs on its own goroutine and is awaited.
func readAll(fileSize, buffering int, async bool) int64 {
	f, err := os.Open(state002.src)
	must(err)
	defer f.Close()
	var r io.Reader = f
	if buffering > 0 {
		r = bufio.NewReaderSize(f, buffering)
	}
	buf := state002.buf
	var done chan ioResult
	if async {
		done = make(chan ioResult, 1)
	}
	var total int64
	for total < int64(fileSize) {
		n, err := readOnce(r, buf, done)
		total += int64(n)
		if err == io.EOF {
			break
		}
		must(err)
	}
	return total
}

// writeAll creates the destination file and writes fileSize/userBufferSize user buffers, through a
// bufio.Writer of `buffering` bytes (0: straight to the *os.File). async: as in readAll.
func writeAll(fileSize, userBufferSize, buffering int, async bool) {
	f, err := os.Create(state002.dst)
	must(err)
	var w io.Writer = f
	var bw *bufio.Writer
	if buffering > 0 {
		bw = bufio.NewWriterSize(f, buffering)
		w = bw
	}
	buf := state002.buf
	var done chan ioResult
	if async {
		done = make(chan ioResult, 1)
	}
	for i := 0; i < fileSize/userBufferSize; i++ {
		if async {
			go func() {
				n, err := w.Write(buf)
				done <- ioResult{n, err}
			}()
			err = (<-done).err
		} else {
			_, err = w.Write(buf)
		}
		must(err)
	}
	if bw != nil {
		must(bw.Flush())
	}
	must(f.Close())
}

func rwBench(read bool, buffering int, async bool) func(p map[string]string) func(int) {
	return func(p map[string]string) func(int) {
		fileSize, userBufferSize := atoi(p, "fileSize"), atoi(p, "userBufferSize")
		setup002(fileSize, userBufferSize)
		if read {
			return func(n int) {
				var total int64
				for i := 0; i < n; i++ {
					total += readAll(fileSize, buffering, async)
				}
				perflab.Sink(total)
			}
		}
		return func(n int) {
			for i := 0; i < n; i++ {
				writeAll(fileSize, userBufferSize, buffering, async)
			}
		}
	}
}

// The seed's rows (its result tables; it does not show SyncArguments/AsyncArguments): 1 MiB with a 512-
// or 4096-byte user buffer, 16384 for the unbuffered forms, and for WriteAsync also 1 KiB × 1 KiB.
var (
	rwGrid          = []perflab.Axis{{Name: "fileSize", Values: []string{"1048576"}}, {Name: "userBufferSize", Values: []string{"512", "4096"}}}
	unbufferedGrid  = []perflab.Axis{{Name: "fileSize", Values: []string{"1048576"}}, {Name: "userBufferSize", Values: []string{"16384"}}}
	writeAsyncSmall = []perflab.Axis{{Name: "fileSize", Values: []string{"1024"}}, {Name: "userBufferSize", Values: []string{"1024"}}}
)

// The seed's 100 MiB rows: a 4096-byte user buffer with the stream buffer, 16384 without it.
var (
	largeBuffered   = []perflab.Axis{{Name: "fileSize", Values: []string{"104857600"}}, {Name: "userBufferSize", Values: []string{"4096"}}}
	largeUnbuffered = []perflab.Axis{{Name: "fileSize", Values: []string{"104857600"}}, {Name: "userBufferSize", Values: []string{"16384"}}}
)

// -- RandomAccess (thread-safe, offset-based) -----------------------------------------------------

// positional handles the file's blocks with ReadAt/WriteAt (pread/pwrite: the shared file offset is
// never touched) on ONE *os.File, from `threads` goroutines that each take an interleaved share.
func positional(fileSize, userBufferSize, threads int, write bool) {
	var f *os.File
	var err error
	if write {
		f, err = os.OpenFile(state002.dst, os.O_RDWR|os.O_CREATE, 0o600)
	} else {
		f, err = os.Open(state002.src)
	}
	must(err)
	defer f.Close()
	blocks := fileSize / userBufferSize
	work := func(start int, buf []byte) {
		for b := start; b < blocks; b += threads {
			off := int64(b) * int64(userBufferSize)
			var err error
			if write {
				_, err = f.WriteAt(buf, off)
			} else {
				_, err = f.ReadAt(buf, off)
			}
			must(err)
		}
	}
	if threads == 1 {
		work(0, make([]byte, userBufferSize))
		return
	}
	var wg sync.WaitGroup
	wg.Add(threads)
	for t := 0; t < threads; t++ {
		go func(start int) {
			defer wg.Done()
			work(start, make([]byte, userBufferSize))
		}(t)
	}
	wg.Wait()
}

func randomAccess(write bool) func(p map[string]string) func(int) {
	return func(p map[string]string) func(int) {
		fileSize, userBufferSize, threads := atoi(p, "fileSize"), atoi(p, "userBufferSize"), atoi(p, "threads")
		setup002(fileSize, userBufferSize)
		return func(n int) {
			for i := 0; i < n; i++ {
				positional(fileSize, userBufferSize, threads, write)
			}
		}
	}
}

var randomAxes = []perflab.Axis{{Name: "fileSize", Values: []string{"1048576"}},
	{Name: "userBufferSize", Values: []string{"4096"}}, {Name: "threads", Values: []string{"1", "4"}}}

// -- Scatter/Gather and Preallocation -------------------------------------------------------------

const (
	fileSize100MB = 100000000
	gatherBuffer  = 16000
)

// gather writes total bytes of zeros with one WriteAt (pwrite) per 16000-byte buffer (buffers == 1)
// or one pwritev of `buffers` such buffers per call; the file is removed after closing it, like the
// seed's FileOptions.DeleteOnClose. preallocate: fallocate(2) the whole size first (the seed's
// PreallocationSize, which .NET maps to posix_fallocate on Unix).
func gather(total, buffers int, preallocate bool) {
	buf := make([]byte, gatherBuffer)
	f, err := os.OpenFile(state002.dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	must(err)
	defer func() {
		must(f.Close())
		must(os.Remove(state002.dst))
	}()
	if preallocate {
		must(fallocate(f, int64(total)))
	}
	var written int64
	if buffers == 1 {
		for i := 0; i < total/gatherBuffer; i++ {
			_, err := f.WriteAt(buf, written)
			must(err)
			written += gatherBuffer
		}
		return
	}
	bufs := make([][]byte, buffers)
	for i := range bufs {
		bufs[i] = buf
	}
	g := newGatherWriter(f, bufs)
	step := int64(gatherBuffer * buffers)
	for i := 0; i < total/(gatherBuffer*buffers); i++ {
		must(g.writeAt(written))
		written += step
	}
}

func gatherBench(total, buffers int) func(map[string]string) func(int) {
	return func(map[string]string) func(int) {
		setup002(0, 0)
		return func(n int) {
			for i := 0; i < n; i++ {
				gather(total, buffers, false)
			}
		}
	}
}

func preallocBench(total int) func(map[string]string) func(int) {
	return func(p map[string]string) func(int) {
		specify, err := strconv.ParseBool(p["specifyPreallocationSize"])
		must(err)
		setup002(0, 0)
		return func(n int) {
			for i := 0; i < n; i++ {
				gather(total, 1, specify)
			}
		}
	}
}

var preallocAxes = []perflab.Axis{{Name: "specifyPreallocationSize", Values: []string{"False", "True"}}}

func init() {
	fileIO, quick, large := []string{"file_io"}, []string{"file_io", "quick"}, []string{"large"}

	perflab.Register(perflab.Benchmark{Name: "SeekForward", Categories: quick, Meta: with(meta002("Seek/Position"), "faithful"),
		Description: "Open the 1 KiB file and seek to every offset from the beginning (seed: FileStream.Seek)",
		Params:      seekAxes, Setup: seekBench(false), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "SeekBackward", Categories: fileIO, Meta: with(meta002("Seek/Position"), "faithful"),
		Description: "Seek to every offset counted from the end (io.SeekEnd)",
		Params:      seekAxes, Setup: seekBench(true), Teardown: teardown002})

	perflab.Register(perflab.Benchmark{Name: "GetLength", Ops: kib, Categories: fileIO,
		Meta:        with(meta002("Length"), "partial: how=fstat/seek_end replaces the seed's FileShare axis (nothing caches the length)"),
		Description: "Open the file, then ask for its length 1024 times: f.Stat().Size() or Seek(0, io.SeekEnd) and back",
		Params:      []perflab.Axis{{Name: "how", Values: []string{"fstat", "seek_end"}}},
		Setup:       getLength, Teardown: teardown002})

	rw, rwExtra := with(meta002("Read & Write"), "faithful"), extra002("Read & Write") // the seed has no sync _NoBuffering
	perflab.Register(perflab.Benchmark{Name: "Read", Categories: fileIO, Meta: rw, Params: rwGrid,
		Description: "Read the whole file with a user buffer through a 4 KiB bufio.Reader",
		Setup:       rwBench(true, fourKiB, false), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "Read_NoBuffering", Categories: fileIO, Meta: rwExtra, Params: rwGrid,
		Description: "As Read, straight from the *os.File (one read(2) per user buffer)",
		Setup:       rwBench(true, 0, false), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "Write", Categories: fileIO, Meta: rw, Params: rwGrid,
		Description: "Create the file and write fileSize/userBufferSize user buffers through a 4 KiB bufio.Writer",
		Setup:       rwBench(false, fourKiB, false), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "Write_NoBuffering", Categories: fileIO, Meta: rwExtra, Params: rwGrid,
		Description: "As Write, straight to the *os.File (one write(2) per user buffer)",
		Setup:       rwBench(false, 0, false), Teardown: teardown002})

	ra, wa := with(meta002("ReadAsync"), "faithful"), with(meta002("WriteAsync"), "faithful")
	perflab.Register(perflab.Benchmark{Name: "ReadAsync", Categories: fileIO, Meta: ra, Params: rwGrid,
		Description: "As Read, every Read on a goroutine of its own, awaited on a channel",
		Setup:       rwBench(true, fourKiB, true), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "ReadAsync_NoBuffering", Categories: fileIO, Meta: ra, Params: unbufferedGrid,
		Setup: rwBench(true, 0, true), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "WriteAsync", Categories: fileIO, Meta: wa, Params: rwGrid,
		Description: "As Write, every Write on a goroutine of its own, awaited on a channel",
		Setup:       rwBench(false, fourKiB, true), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "WriteAsync_NoBuffering", Categories: fileIO, Meta: wa, Params: unbufferedGrid,
		Setup: rwBench(false, 0, true), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "WriteAsync", ID: "WriteAsync_small", Categories: fileIO, Meta: wa,
		Params: writeAsyncSmall, Description: "The seed's 1 KiB row: one 1 KiB write per call, on a goroutine",
		Setup: rwBench(false, fourKiB, true), Teardown: teardown002})

	// The 100 MiB rows (category "large" only). Same names, so they need their own ids.
	perflab.Register(perflab.Benchmark{Name: "Read", ID: "Read_large", Categories: large, Meta: rw,
		Params: largeBuffered, Setup: rwBench(true, fourKiB, false), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "Read_NoBuffering", ID: "Read_NoBuffering_large", Categories: large,
		Meta: rwExtra, Params: largeUnbuffered, Setup: rwBench(true, 0, false), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "Write", ID: "Write_large", Categories: large, Meta: rw,
		Params: largeBuffered, Setup: rwBench(false, fourKiB, false), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "Write_NoBuffering", ID: "Write_NoBuffering_large", Categories: large,
		Meta: rwExtra, Params: largeUnbuffered, Setup: rwBench(false, 0, false), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "ReadAsync", ID: "ReadAsync_large", Categories: large, Meta: ra,
		Params: largeBuffered, Setup: rwBench(true, fourKiB, true), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "ReadAsync_NoBuffering", ID: "ReadAsync_NoBuffering_large",
		Categories: large, Meta: ra, Params: largeUnbuffered, Setup: rwBench(true, 0, true), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "WriteAsync", ID: "WriteAsync_large", Categories: large, Meta: wa,
		Params: largeBuffered, Setup: rwBench(false, fourKiB, true), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "WriteAsync_NoBuffering", ID: "WriteAsync_NoBuffering_large",
		Categories: large, Meta: wa, Params: largeUnbuffered, Setup: rwBench(false, 0, true), Teardown: teardown002})

	perflab.Register(perflab.Benchmark{Name: "RandomAccessRead", Categories: fileIO, Meta: extra002("RandomAccess"),
		Description: "Read a 1 MiB file with ReadAt (pread) at explicit offsets, from 1 or 4 goroutines sharing one *os.File",
		Params:      randomAxes, Setup: randomAccess(false), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "RandomAccessWrite", Categories: fileIO, Meta: extra002("RandomAccess"),
		Description: "Write 1 MiB with WriteAt (pwrite) at explicit offsets, from 1 or 4 goroutines sharing one *os.File",
		Params:      randomAxes, Setup: randomAccess(true), Teardown: teardown002})

	sg, sgSmall := with(meta002("Scatter/Gather"), "faithful"), with(meta002("Scatter/Gather"), smallFile)
	size := func(n int) []perflab.Axis {
		return []perflab.Axis{{Name: "FileSize", Values: []string{strconv.Itoa(n)}}}
	}
	perflab.Register(perflab.Benchmark{Name: "Write", ID: "Write_gather_large", Categories: large, Meta: sg,
		Description: "100 MB written with one WriteAt (pwrite) per 16000-byte buffer",
		Params:      size(fileSize100MB), Setup: gatherBench(fileSize100MB, 1), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "WriteGather", ID: "WriteGather_large", Categories: large, Meta: sg,
		Description: "100 MB written with one pwritev of 4 × 16000-byte buffers per call",
		Params:      size(fileSize100MB), Setup: gatherBench(fileSize100MB, 4), Teardown: teardown002})
	// A 10 MB version of the same pair for quick runs.
	perflab.Register(perflab.Benchmark{Name: "Write", ID: "Write_gather", Categories: quick, Meta: sgSmall,
		Description: "10 MB written with one WriteAt (pwrite) per 16000-byte buffer",
		Params:      size(fileSize100MB / 10), Setup: gatherBench(fileSize100MB/10, 1), Teardown: teardown002})
	perflab.Register(perflab.Benchmark{Name: "WriteGather", Categories: quick, Meta: sgSmall,
		Description: "10 MB written with one pwritev of 4 × 16000-byte buffers per call",
		Params:      size(fileSize100MB / 10), Setup: gatherBench(fileSize100MB/10, 4), Teardown: teardown002})

	perflab.Register(perflab.Benchmark{Name: "PreallocationSize", ID: "PreallocationSize_large", Categories: large,
		Meta:        with(meta002("Preallocation"), "faithful"),
		Description: "Write a 100 MB file with 16000-byte WriteAt calls, with or without fallocate(2) first",
		Params:      preallocAxes, Setup: preallocBench(fileSize100MB), Teardown: teardown002})
	small := with(meta002("Preallocation"), smallFile)
	small["file_size"] = strconv.Itoa(fileSize100MB / 10)
	perflab.Register(perflab.Benchmark{Name: "PreallocationSize", Categories: quick, Meta: small,
		Description: "The same with a 10 MB file (quick runs)",
		Params:      preallocAxes, Setup: preallocBench(fileSize100MB / 10), Teardown: teardown002})
}
