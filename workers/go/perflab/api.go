// Package perflab is perflab's Go worker: the in-process agent that runs benchmarks for the perflab
// host over protocol v2 (see protocol/PROTOCOL.md), and a small native API for benchmarks written for
// perflab directly.
//
// Ordinary `func BenchmarkX(b *testing.B)` benchmarks need nothing from this package: perflab builds
// the package's test binary with a generated file that registers them (see workers/go/README.md).
//
// Native API, in short:
//
//	func init() {
//		// fn performs the operation n times; keep results alive with perflab.Sink.
//		perflab.Bench("sum", func(n int) {
//			s := 0
//			for i := 0; i < n; i++ {
//				s += data[i%len(data)]
//			}
//			perflab.Sink(s)
//		})
//		// fn performs the operation once; the worker loops and sinks every result.
//		perflab.Func("hash", func() uint64 { return fnv(key) }, perflab.Baseline())
//		// parameters, per-case setup, operations per call:
//		perflab.Register(perflab.Benchmark{
//			Name:   "build",
//			Params: []perflab.Axis{{Name: "n", Values: []string{"10", "1000"}}},
//			Ops:    4,
//			Setup: func(p map[string]string) func(n int) {
//				size, _ := strconv.Atoi(p["n"])
//				return func(n int) { ... }
//			},
//		})
//	}
//
// Benchmarks of one package that share a Name (the same method measured on another grid of
// parameters, say) need distinct IDs: the protocol id is "<import path>.<ID>", and ID defaults to
// Name. A duplicate id is reported as a load error and only its first registration is kept.
package perflab

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
)

// Axis is one parameter axis of a native benchmark: its values are display strings, and the case's
// chosen values are handed to Benchmark.Setup by axis name.
type Axis struct {
	Name   string
	Values []string
}

// Benchmark describes a native benchmark.
type Benchmark struct {
	Name        string
	ID          string // the id within its package (default: Name); set it when benchmarks share a Name
	Group       string // default: the registering package's name
	Baseline    bool   // the row other rows of its group are compared with
	Ops         int    // operations performed by one invocation (default 1)
	Categories  []string
	Description string
	Meta        map[string]string
	Params      []Axis

	// Fn runs the operation n times. Exactly one of Fn and Setup must be set.
	Fn func(n int)
	// Setup prepares one case (parameter values by axis name) outside timing and returns the
	// function to time, which runs the operation n times.
	Setup func(params map[string]string) func(n int)
	// Teardown, if set, runs after the case.
	Teardown func()

	file     string
	line     int
	pkg      string
	overhead func(n int) // the empty function of the same shape, for the overhead stage
}

// Option adjusts a benchmark registered with Bench or Func.
type Option func(*Benchmark)

// Baseline marks the benchmark as its group's baseline.
func Baseline() Option { return func(b *Benchmark) { b.Baseline = true } }

// Ops says one invocation performs k operations (BenchmarkDotNet's OperationsPerInvoke).
func Ops(k int) Option { return func(b *Benchmark) { b.Ops = k } }

// Group puts the benchmark in a named group (default: its package name).
func Group(g string) Option { return func(b *Benchmark) { b.Group = g } }

// Categories tags the benchmark.
func Categories(c ...string) Option {
	return func(b *Benchmark) { b.Categories = append(b.Categories, c...) }
}

// Description sets the benchmark's one-line description.
func Description(d string) Option { return func(b *Benchmark) { b.Description = d } }

// Meta adds key/value pairs (k1, v1, k2, v2, …) to the benchmark's meta, which the host copies into
// the results: Meta("seed", "002", "section", "Seek/Position").
func Meta(kv ...string) Option {
	if len(kv)%2 != 0 {
		panic("perflab.Meta: an odd number of arguments (want key, value pairs)")
	}
	return func(b *Benchmark) {
		if b.Meta == nil {
			b.Meta = map[string]string{}
		}
		for i := 0; i < len(kv); i += 2 {
			b.Meta[kv[i]] = kv[i+1]
		}
	}
}

var (
	regMu  sync.Mutex
	native []*Benchmark
)

// Register adds a native benchmark. Call it from an init function (or a package-level var).
func Register(b Benchmark) { register(b, 2) }

func register(b Benchmark, skip int) {
	if b.Ops == 0 {
		b.Ops = 1
	}
	if b.Ops < 0 {
		panic(fmt.Sprintf("perflab: benchmark %q: Ops must be >= 1", b.Name))
	}
	if (b.Fn == nil) == (b.Setup == nil) {
		panic(fmt.Sprintf("perflab: benchmark %q: set exactly one of Fn and Setup", b.Name))
	}
	if b.Name == "" {
		panic("perflab: a benchmark needs a Name")
	}
	for _, a := range b.Params {
		if len(a.Values) == 0 {
			panic(fmt.Sprintf("perflab: benchmark %q: parameter %q has no values", b.Name, a.Name))
		}
	}
	if pc, file, line, ok := runtime.Caller(skip); ok {
		b.file, b.line = file, line
		if fn := runtime.FuncForPC(pc); fn != nil {
			b.pkg = packageOf(fn.Name())
		}
	}
	if b.Group == "" {
		b.Group = groupOf(b.pkg)
	}
	if b.overhead == nil {
		b.overhead = emptyLoop
	}
	regMu.Lock()
	defer regMu.Unlock()
	native = append(native, &b)
}

// Bench registers fn, which performs the operation n times (like a b.N loop). The compiler may delete
// work whose result is unused: pass results to Sink.
func Bench(name string, fn func(n int), opts ...Option) {
	b := Benchmark{Name: name, Fn: fn}
	for _, o := range opts {
		o(&b)
	}
	register(b, 2)
}

// Func registers fn, which performs the operation once; the worker calls it in its own loop and keeps
// every result alive, so the computation cannot be optimised away.
func Func[T any](name string, fn func() T, opts ...Option) {
	b := Benchmark{Name: name, Fn: funcLoop(fn), overhead: funcLoop(func() T { var z T; return z })}
	for _, o := range opts {
		o(&b)
	}
	register(b, 2)
}

func funcLoop[T any](fn func() T) func(n int) {
	return func(n int) {
		var r T
		for i := 0; i < n; i++ {
			r = fn()
		}
		Sink(r)
	}
}

// Sink keeps v alive: Sink is never inlined and the compiler does no interprocedural dead-argument
// elimination, so the computation of v cannot be removed. It does not allocate.
//
//go:noinline
func Sink[T any](v T) {}

//go:noinline
func emptyLoop(n int) {
	for i := 0; i < n; i++ {
	}
}

// packageOf turns "example.com/x/y.init.0" into "example.com/x/y".
func packageOf(funcName string) string {
	slash := strings.LastIndex(funcName, "/")
	dot := strings.Index(funcName[slash+1:], ".")
	if dot < 0 {
		return funcName
	}
	return funcName[:slash+1+dot]
}

func groupOf(pkg string) string {
	g := pkg[strings.LastIndex(pkg, "/")+1:]
	return strings.TrimSuffix(g, "_test")
}
