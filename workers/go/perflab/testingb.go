package perflab

import (
	"sync"
	"testing"
	"time"
)

// Result is one execution of a testing.B benchmark with a fixed b.N, as the testing package measured
// it (a copy of testing.PerflabResult, which exists only in perflab-built test binaries).
type Result struct {
	N         int
	T         time.Duration
	CPU       time.Duration // the benchmark thread's CPU time while the *B's timer ran
	Bytes     int64
	MemAllocs uint64
	MemBytes  uint64
	GCs       uint32 // collections not forced by runtime.GC that ended while the *B's timer ran
	Extra     map[string]float64
	Failed    bool
	Skipped   bool
	Output    string
	Panic     string
	Stack     string
	Found     bool
	Leaves    []string
	Name      string
}

// Runner runs top-level benchmark `name` (function f): with discover, once with b.N=1 reporting its
// sub-benchmarks; otherwise the (sub-)benchmark with full name target, with b.N = n.
type Runner func(name string, f func(*testing.B), target string, n int, discover bool) Result

// TB is an ordinary testing.B benchmark found in the package's _test.go files.
type TB struct {
	Pkg         string // import path of the package (an external test package ends in _test)
	Func        string // BenchmarkX
	F           func(*testing.B)
	File        string
	Line        int
	MayHaveSubs bool // the function's source calls .Run(: discover its sub-benchmarks at load
	Loop        bool // the function uses b.Loop(): the overhead stage uses an empty b.Loop loop
	Parallel    bool // the function calls b.RunParallel (diagnose notes what its CPU time is)
	Baseline    bool // from a `//perflab:` directive
	Ops         int
	Categories  []string
	Description string
}

// Ender lets the parents of the sub-benchmark measured last return (the testing package keeps them
// inside its b.Run while the case runs, as go test does) and returns what they reported afterwards.
type Ender func() Result

var (
	tbMu       sync.Mutex
	tbs        []*TB
	tbRunner   Runner
	tbEnd      Ender
	emptyN     func(*testing.B)
	emptyLoopB func(*testing.B)
)

// UseTesting installs the runner and the empty benchmark bodies of the overhead stage (generated
// code calls this; emptyLoop is nil when the toolchain has no B.Loop).
func UseTesting(r Runner, emptyNLoop, emptyBLoop func(*testing.B)) {
	tbMu.Lock()
	defer tbMu.Unlock()
	tbRunner, emptyN, emptyLoopB = r, emptyNLoop, emptyBLoop
}

// UseTestingEnd installs the Ender (generated code calls this).
func UseTestingEnd(e Ender) {
	tbMu.Lock()
	defer tbMu.Unlock()
	tbEnd = e
}

// AddTB registers an ordinary testing.B benchmark (generated code calls this).
func AddTB(t TB) {
	if t.Ops < 1 {
		t.Ops = 1
	}
	tbMu.Lock()
	defer tbMu.Unlock()
	tbs = append(tbs, &t)
}
