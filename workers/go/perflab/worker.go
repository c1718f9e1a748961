package perflab

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

const protocolVersion = 2
const maxLine = 64 << 20

// entry is one benchmark as reported in `loaded`.
type entry struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Group       string            `json:"group"`
	File        string            `json:"file"`
	Line        int               `json:"line"`
	Baseline    bool              `json:"baseline"`
	Categories  []string          `json:"categories"`
	Ops         int               `json:"ops_per_invoke"`
	Params      []axisJSON        `json:"params"`
	Description string            `json:"description"`
	Meta        map[string]string `json:"meta"`

	nat  *Benchmark
	tb   *TB
	raw  [][]string // per axis, the sub-benchmark name parts (testing.B) behind the display values
	flat bool       // testing.B: one axis whose values are whole relative sub-benchmark paths
}

type axisJSON struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// liveCase is the case set up by `setup`.
type liveCase struct {
	e        *entry
	fn       func(n int) // native
	overhead func(n int) // native
	target   string      // testing.B: full name of the (sub-)benchmark to run
	failed   bool        // testing.B: a round failed (its error was sent)
}

type worker struct {
	conn    net.Conn
	r       *bufio.Reader
	entries map[string]*entry
	order   []*entry
	cur     *liveCase
}

// ServeT is the body of the generated TestPerflabWorker test: it runs the protocol on the socket named
// by PERFLAB_CONNECT until `bye`.
func ServeT(t *testing.T) {
	if id := os.Getenv("PERFLAB_GO_DISCOVER"); id != "" {
		if err := discoverOne(id, os.Getenv("PERFLAB_GO_DISCOVER_OUT")); err != nil {
			fmt.Fprintln(os.Stderr, "perflab discovery:", err)
			os.Exit(3)
		}
		return
	}
	if os.Getenv("PERFLAB_CONNECT") == "" {
		t.Skip("perflab worker: PERFLAB_CONNECT is not set (this binary is started by perflab)")
	}
	if err := Serve(); err != nil {
		fmt.Fprintln(os.Stderr, "perflab worker:", err)
		os.Exit(3)
	}
	// Hide the testing framework's closing "PASS" from the benchmark output the host reports.
	if devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		os.Stdout = devnull
	}
}

// Serve connects to PERFLAB_CONNECT, says hello and answers requests until `bye` or EOF.
func Serve() error {
	addr := os.Getenv("PERFLAB_CONNECT")
	if addr == "" {
		return errors.New("PERFLAB_CONNECT is not set; this program is started by `perflab run`")
	}
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	w := &worker{conn: conn, r: bufio.NewReaderSize(conn, 1<<16), entries: map[string]*entry{}}
	return w.serve()
}

func (w *worker) send(msg map[string]any) {
	msg["v"] = protocolVersion
	data, err := json.Marshal(msg)
	if err != nil {
		data, _ = json.Marshal(map[string]any{"v": protocolVersion, "id": msg["id"], "type": "error",
			"error": map[string]any{"kind": "exception", "message": "cannot encode reply: " + err.Error()}})
	}
	data = append(data, '\n')
	if _, err := w.conn.Write(data); err != nil {
		fmt.Fprintln(os.Stderr, "perflab worker: host went away:", err)
		os.Exit(3)
	}
}

type benchErr struct {
	kind, message, traceback, file string
	line                           int
}

func (w *worker) fail(id any, e *benchErr) {
	err := map[string]any{"kind": e.kind, "message": e.message}
	if e.traceback != "" {
		err["traceback"] = e.traceback
	}
	if e.file != "" {
		err["file"], err["line"] = e.file, e.line
	}
	w.send(map[string]any{"id": id, "type": "error", "error": err})
}

func (w *worker) errorf(id any, kind, format string, args ...any) {
	w.fail(id, &benchErr{kind: kind, message: fmt.Sprintf(format, args...)})
}

func (w *worker) readLine() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := w.r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if err == nil {
			return buf, nil
		}
		if err != bufio.ErrBufferFull {
			if len(buf) > 0 && err == io.EOF {
				return buf, nil
			}
			return nil, err
		}
		if len(buf) > maxLine {
			return nil, errors.New("request line longer than 64 MiB")
		}
	}
}

func (w *worker) serve() error {
	w.hello()
	for {
		line, err := w.readLine()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var msg map[string]any
		if err := dec.Decode(&msg); err != nil || msg == nil {
			w.errorf(nil, "protocol", "malformed request: not a JSON object")
			continue
		}
		id := msg["id"]
		if v, ok := msg["v"].(json.Number); !ok || v.String() != strconv.Itoa(protocolVersion) {
			w.errorf(id, "version", "this worker speaks protocol v%d, got v%v", protocolVersion, msg["v"])
			return nil
		}
		typ, _ := msg["type"].(string)
		var done bool
		switch typ {
		case "load":
			w.onLoad(id, msg)
		case "setup":
			w.onSetup(id, msg)
		case "run":
			w.onRun(id, msg)
		case "teardown":
			w.onTeardown(id)
		case "bye":
			w.send(map[string]any{"id": id, "type": "done"})
			done = true
		default:
			w.errorf(id, "protocol", "unknown request type %q", typ)
		}
		if done {
			return nil
		}
	}
}

func (w *worker) hello() {
	exe, _ := os.Executable()
	caps := []string{"alloc", "allocs", "gc", "with_overhead", "overhead_first"}
	w.send(map[string]any{
		"type": "hello", "token": os.Getenv("PERFLAB_TOKEN"), "language": "go",
		"runtime": map[string]any{"name": "go", "version": runtime.Version(), "executable": exe,
			"goos": runtime.GOOS, "goarch": runtime.GOARCH, "gomaxprocs": runtime.GOMAXPROCS(0)},
		"clock":        map[string]any{"resolution_ns": clockResolution(), "source": "time.Now (monotonic)"},
		"cpu_clock":    cpuClock(),
		"capabilities": caps, "unroll": 1, "pid": os.Getpid(),
	})
}

// hasCPUClock: the measuring thread's CPU time can be read (samples then carry cpu_ns).
var hasCPUClock = func() bool { _, ok := ThreadCPUTime(); return cpuClockSource != "" && ok }()

// cpuClock is hello's cpu_clock: nil (JSON null) where the thread's CPU time cannot be read.
func cpuClock() any {
	if !hasCPUClock {
		return nil
	}
	best := int64(-1)
	for i := 0; i < 20; i++ {
		a, _ := ThreadCPUTime()
		b, _ := ThreadCPUTime()
		for b == a {
			b, _ = ThreadCPUTime()
		}
		if best < 0 || b-a < best {
			best = b - a
		}
	}
	return map[string]any{"source": cpuClockSource, "scope": "thread", "resolution_ns": max(best, 1)}
}

// threadCPU is ThreadCPUTime, 0 where there is none (the reply then carries no cpu_ns).
func threadCPU() int64 {
	ns, _ := ThreadCPUTime()
	return ns
}

func clockResolution() int64 {
	best := int64(-1)
	for i := 0; i < 2000; i++ {
		a := time.Now()
		b := time.Now()
		for b.Sub(a) == 0 {
			b = time.Now()
		}
		if d := int64(b.Sub(a)); best < 0 || d < best {
			best = d
		}
	}
	if best < 1 {
		best = 1
	}
	return best
}

// ---------------------------------------------------------------------------------------------
// load
// ---------------------------------------------------------------------------------------------

func (w *worker) onLoad(id any, msg map[string]any) {
	rawPaths, ok := msg["paths"].([]any)
	if !ok {
		w.errorf(id, "protocol", "request 'load' lacks field 'paths' (a list)")
		return
	}
	var paths []string
	for _, p := range rawPaths {
		if s, ok := p.(string); ok {
			if abs, err := filepath.Abs(s); err == nil {
				s = abs
			}
			paths = append(paths, filepath.Clean(s))
		}
	}
	var loadErrs []map[string]any
	var out []*entry
	regMu.Lock()
	nat := append([]*Benchmark{}, native...)
	regMu.Unlock()
	tbMu.Lock()
	tbl := append([]*TB{}, tbs...)
	tbMu.Unlock()
	for _, b := range nat {
		if !selected(b.file, paths) {
			continue
		}
		key := b.Name
		if b.ID != "" {
			key = b.ID
		}
		e := &entry{ID: b.pkg + "." + key, Name: b.Name, Group: b.Group, File: b.file, Line: b.line,
			Baseline: b.Baseline, Categories: nonNil(b.Categories), Ops: b.Ops,
			Description: b.Description, Meta: b.Meta, nat: b}
		for _, a := range b.Params {
			e.Params = append(e.Params, axisJSON{Name: a.Name, Values: append([]string{}, a.Values...)})
		}
		out = append(out, e)
	}
	disc := loadDiscovery()
	for _, t := range tbl {
		if !selected(t.File, paths) {
			continue
		}
		e := &entry{ID: t.Pkg + "." + t.Func, Name: displayName(t.Func), Group: groupOf(t.Pkg), File: t.File,
			Line: t.Line, Baseline: t.Baseline, Categories: nonNil(t.Categories), Ops: t.Ops,
			Description: t.Description, tb: t}
		if d, ok := disc[e.ID]; ok && t.MayHaveSubs {
			// discovered at build time, in its own process (see discoverOne)
			if len(d.Leaves) > 0 {
				e.setSubAxes(t.Func, d.Leaves)
			} else if d.Error != "" {
				e.Meta = map[string]string{"discovery": "failed: " + firstLine(d.Error)}
			}
		} else if t.MayHaveSubs && tbRunner != nil {
			r := tbRunner(t.Func, t.F, t.Func, 1, true)
			if len(r.Leaves) > 0 {
				e.setSubAxes(t.Func, r.Leaves)
			} else if r.Panic != "" && r.Leaves == nil {
				// It failed before calling b.Run: it is listed as a plain benchmark and fails when run.
				e.Meta = map[string]string{"discovery": "failed: " + firstLine(r.Panic)}
			}
		}
		out = append(out, e)
	}
	regMu.Lock()
	for _, e := range failedLoads {
		if file, _ := e["file"].(string); selected(file, paths) {
			loadErrs = append(loadErrs, e)
		}
	}
	regMu.Unlock()
	if tbRunner == nil && len(tbl) > 0 {
		loadErrs = append(loadErrs, map[string]any{"file": "", "line": 0, "kind": "load",
			"message": "testing.B benchmarks registered without a runner (binary not built by perflab)"})
	}
	out, dups := dedupe(out)
	loadErrs = append(loadErrs, dups...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	list := make([]any, 0, len(out))
	for _, e := range out {
		if e.Meta == nil {
			e.Meta = map[string]string{}
		}
		if e.Params == nil {
			e.Params = []axisJSON{}
		}
		if _, dup := w.entries[e.ID]; !dup {
			w.order = append(w.order, e)
		}
		w.entries[e.ID] = e
		list = append(list, e)
	}
	if loadErrs == nil {
		loadErrs = []map[string]any{}
	}
	w.send(map[string]any{"id": id, "type": "loaded", "benchmarks": list, "errors": loadErrs})
}

// dedupe keeps the first entry of every id and reports the others as load errors: a second
// registration under the same id would otherwise silently replace the first in `setup`.
func dedupe(in []*entry) ([]*entry, []map[string]any) {
	first := map[string]*entry{}
	var out []*entry
	var errs []map[string]any
	for _, e := range in {
		if f, dup := first[e.ID]; dup {
			errs = append(errs, map[string]any{"file": e.File, "line": e.Line, "kind": "load",
				"message": fmt.Sprintf("duplicate benchmark id %q (first registered at %s:%d): "+
					"give one of them a distinct ID", e.ID, f.File, f.Line)})
			continue
		}
		first[e.ID] = e
		out = append(out, e)
	}
	return out, errs
}

// discovered is what discoverOne found for one benchmark.
type discovered struct {
	Leaves []string `json:"leaves"`
	Error  string   `json:"error,omitempty"`
}

// discoverOne runs testing.B benchmark `id` once with b.N=1 and writes its leaf sub-benchmarks to
// out. perflab's build runs this once per benchmark that may have sub-benchmarks, each in its own
// process, and stores the answers in <binary>.discovery.json; `load` then executes no user code, and
// a benchmark that exits or deadlocks while being discovered loses only its own parameters.
func discoverOne(id, out string) error {
	tbMu.Lock()
	var found *TB
	for _, t := range tbs {
		if t.Pkg+"."+t.Func == id {
			found = t
		}
	}
	tbMu.Unlock()
	if found == nil || tbRunner == nil {
		return fmt.Errorf("no testing.B benchmark %q", id)
	}
	r := tbRunner(found.Func, found.F, found.Func, 1, true)
	d := discovered{Leaves: r.Leaves}
	if len(r.Leaves) == 0 && r.Panic != "" {
		d.Error = "panic: " + r.Panic
	}
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return os.WriteFile(out, data, 0o644)
}

func loadDiscovery() map[string]discovered {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	data, err := os.ReadFile(exe + ".discovery.json")
	if err != nil {
		return nil
	}
	var m map[string]discovered
	if json.Unmarshal(data, &m) != nil {
		return nil
	}
	return m
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// displayName: BenchmarkSort → Sort, Benchmark_noop → noop, Benchmark → Benchmark.
func displayName(fn string) string {
	n := strings.TrimPrefix(fn, "Benchmark")
	n = strings.TrimPrefix(n, "_")
	if n == "" {
		return fn
	}
	return n
}

// failedLoads are load errors found before any worker could run: perflab-go-mux serves, for a
// package whose test binary did not build, one error per benchmark of that package (it fails alone).
var failedLoads []map[string]any

// AddLoadError adds a `loaded.errors` entry (file, line, kind, message, and the benchmark it fails)
// that `load` reports when its file is among the loaded paths.
func AddLoadError(e map[string]any) {
	regMu.Lock()
	defer regMu.Unlock()
	failedLoads = append(failedLoads, e)
}

func selected(file string, paths []string) bool {
	if len(paths) == 0 {
		return true
	}
	for _, p := range paths {
		if file == p || strings.HasPrefix(file, p+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// setSubAxes turns the leaf sub-benchmark names of BenchmarkX into parameter axes: one axis per
// nesting level when the leaves form a full cartesian product (an axis of `k=v` names is called k and
// shows v), otherwise one axis "case" whose values are the relative paths.
func (e *entry) setSubAxes(top string, leaves []string) {
	var rels [][]string
	depth := -1
	for _, l := range leaves {
		rel := strings.TrimPrefix(l, top+"/")
		parts := strings.Split(rel, "/")
		if depth == -1 {
			depth = len(parts)
		} else if depth != len(parts) {
			depth = 0
		}
		rels = append(rels, parts)
	}
	if depth > 0 {
		raw := make([][]string, depth)
		seen := make([]map[string]bool, depth)
		for l := range raw {
			seen[l] = map[string]bool{}
		}
		combos := map[string]bool{}
		for _, parts := range rels {
			for l, p := range parts {
				if !seen[l][p] {
					seen[l][p] = true
					raw[l] = append(raw[l], p)
				}
			}
			combos[strings.Join(parts, "/")] = true
		}
		product := 1
		for _, r := range raw {
			product *= len(r)
		}
		if product == len(rels) && len(combos) == len(rels) {
			var axes []axisJSON
			names := map[string]bool{}
			okNames := true
			for l, r := range raw {
				name, values := axisOf(r, l, depth)
				if names[name] {
					okNames = false
				}
				names[name] = true
				axes = append(axes, axisJSON{Name: name, Values: values})
			}
			if okNames {
				e.Params, e.raw = axes, raw
				return
			}
		}
	}
	var values []string
	for _, parts := range rels {
		values = append(values, strings.Join(parts, "/"))
	}
	e.Params = []axisJSON{{Name: "case", Values: values}}
	e.raw = [][]string{values}
	e.flat = true
}

func axisOf(parts []string, level, depth int) (string, []string) {
	key := ""
	var values []string
	for _, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" || (key != "" && k != key) {
			key = ""
			break
		}
		key = k
		values = append(values, v)
	}
	if key != "" {
		return key, values
	}
	if depth == 1 {
		return "case", append([]string{}, parts...)
	}
	return fmt.Sprintf("level%d", level+1), append([]string{}, parts...)
}

// ---------------------------------------------------------------------------------------------
// setup / run / teardown
// ---------------------------------------------------------------------------------------------

func (w *worker) onSetup(id any, msg map[string]any) {
	bid, ok := msg["benchmark"].(string)
	if !ok {
		w.errorf(id, "protocol", "request 'setup' lacks field 'benchmark' (a string)")
		return
	}
	e := w.entries[bid]
	if e == nil {
		w.errorf(id, "not_found", "no benchmark with id %q", bid)
		return
	}
	given, _ := msg["params"].(map[string]any)
	idx := make([]int, len(e.Params))
	for i, a := range e.Params {
		v, present := given[a.Name]
		num, isNum := v.(json.Number)
		if !present || !isNum {
			w.errorf(id, "not_found", "%s: missing index for parameter '%s'", bid, a.Name)
			return
		}
		k, err := strconv.Atoi(num.String())
		if err != nil || k < 0 || k >= len(a.Values) {
			w.errorf(id, "not_found", "%s: parameter '%s' has no value #%v", bid, a.Name, v)
			return
		}
		idx[i] = k
	}
	c := &liveCase{e: e}
	if e.nat != nil {
		b := e.nat
		c.fn, c.overhead = b.Fn, b.overhead
		if b.Setup != nil {
			values := map[string]string{}
			for i, a := range b.Params {
				values[a.Name] = a.Values[idx[i]]
			}
			var berr *benchErr
			c.fn, berr = callSetup(b.Setup, values)
			if berr != nil {
				berr.message = "setup failed: " + berr.message
				w.fail(id, berr)
				return
			}
			if c.fn == nil {
				w.errorf(id, "exception", "setup of %s returned a nil function", bid)
				return
			}
		}
	} else {
		c.target = e.tb.Func
		if len(e.raw) > 0 {
			var parts []string
			for i := range e.raw {
				parts = append(parts, e.raw[i][idx[i]])
			}
			c.target += "/" + strings.Join(parts, "/")
		}
	}
	endTB() // a case left without teardown: its sub-benchmark's parents return first
	w.cur = c
	runtime.GC()
	w.send(map[string]any{"id": id, "type": "ready"})
}

func callSetup(setup func(map[string]string) func(int), values map[string]string) (fn func(int), e *benchErr) {
	defer func() {
		if p := recover(); p != nil {
			e = panicErr(p, string(debug.Stack()))
		}
	}()
	return setup(values), nil
}

// endTB lets the parents of the sub-benchmark measured last return (testing.PerflabEnd).
func endTB() Result {
	if tbEnd == nil {
		return Result{}
	}
	return tbEnd()
}

func (w *worker) onTeardown(id any) {
	c := w.cur
	w.cur = nil
	if c != nil && c.e.tb != nil {
		// what the parents did after the sub-benchmark's rounds: a failure there is the case's,
		// unless it is the rounds' own (a sub-benchmark's failure marks its parents failed too)
		r := endTB()
		if r.Found && (r.Panic != "" || (r.Failed && !c.failed)) {
			berr := tbError(&r, r.Name)
			berr.message = "after its sub-benchmark ran, " + r.Name + ": " + berr.message
			w.fail(id, berr)
			return
		}
	}
	if c != nil && c.e.nat != nil && c.e.nat.Teardown != nil {
		var berr *benchErr
		func() {
			defer func() {
				if p := recover(); p != nil {
					berr = panicErr(p, string(debug.Stack()))
				}
			}()
			c.e.nat.Teardown()
		}()
		if berr != nil {
			berr.message = "cleanup failed: " + berr.message
			w.fail(id, berr)
			return
		}
	}
	w.send(map[string]any{"id": id, "type": "done"})
}

func intField(msg map[string]any, name string) (int, bool) {
	num, ok := msg[name].(json.Number)
	if !ok {
		return 0, false
	}
	v, err := strconv.Atoi(num.String())
	return v, err == nil
}

func (w *worker) onRun(id any, msg map[string]any) {
	if w.cur == nil {
		w.errorf(id, "state", "run before setup")
		return
	}
	stage, ok := msg["stage"].(string)
	if !ok {
		w.errorf(id, "protocol", "request 'run' lacks field 'stage'")
		return
	}
	inv, ok1 := intField(msg, "invocations")
	its, ok2 := intField(msg, "iterations")
	if !ok1 || !ok2 {
		w.errorf(id, "protocol", "request 'run' needs integer fields 'invocations' and 'iterations'")
		return
	}
	if inv < 1 || its < 1 {
		w.errorf(id, "protocol", "invocations and iterations must be >= 1")
		return
	}
	switch stage {
	case "pilot", "warmup", "overhead", "workload", "diagnose":
	default:
		w.errorf(id, "protocol", "unknown stage %q", stage)
		return
	}
	// with_overhead: each workload iteration is followed by one overhead iteration (PROTOCOL.md, run),
	// or preceded by it with overhead_first: the second of a request is the one a loaded machine
	// preempts, and the host puts each side second alike.
	withOverhead, _ := msg["with_overhead"].(bool)
	overheadFirst, _ := msg["overhead_first"].(bool)
	if withOverhead && stage != "workload" {
		w.errorf(id, "protocol", "with_overhead is for the workload stage only")
		return
	}
	if stage == "diagnose" {
		w.diagnose(id, inv, its)
		return
	}
	// The thread's CPU clock means this goroutine's only while it stays on one OS thread.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	iteration := w.cur.iteration(stage == "overhead")
	var empty func(int) (timing, *benchErr)
	var over, overCPU []int64
	if withOverhead {
		empty = w.cur.iteration(true)
		over, overCPU = make([]int64, 0, its), make([]int64, 0, its)
	}
	ns, cpu := make([]int64, 0, its), make([]int64, 0, its)
	runEmpty := func() *benchErr {
		t, berr := empty(inv)
		if berr == nil {
			over, overCPU = append(over, t.ns), append(overCPU, t.cpu)
		}
		return berr
	}
	loop := func() *benchErr {
		for i := 0; i < its; i++ {
			if empty != nil && overheadFirst {
				if berr := runEmpty(); berr != nil {
					return berr
				}
			}
			t, berr := iteration(inv)
			if berr != nil {
				return berr
			}
			ns, cpu = append(ns, t.ns), append(cpu, t.cpu)
			if empty != nil && !overheadFirst {
				if berr := runEmpty(); berr != nil {
					return berr
				}
			}
		}
		return nil
	}
	var berr *benchErr
	if countMode {
		berr = measuredRegion(loop)
	} else if profilePath != "" && stage == "workload" {
		berr = profiled(loop)
	} else {
		berr = loop()
	}
	if berr != nil {
		w.fail(id, berr)
		return
	}
	reply := map[string]any{"id": id, "type": "samples", "stage": stage, "invocations": inv, "ns": ns}
	if hasCPUClock {
		reply["cpu_ns"] = cpu
	}
	if withOverhead {
		reply["overhead_ns"] = over
		if hasCPUClock {
			reply["overhead_cpu_ns"] = overCPU
		}
	}
	w.send(reply)
}

// countMode: the worker runs under valgrind's callgrind (`perflab run --measure instructions`;
// environment PERFLAB_COUNT=1). callgrind counts only inside the marker functions below, each seen
// by name (--toggle-collect: collection flips on every entry and exit, per OS thread):
//
//   - measuredRegion wraps the timed loop of one `run` request; callgrind dumps the counts each
//     time it returns (--dump-after), one dump per run. Entering it turns counting on, and
//   - uncounted, entered at once, turns it off again: the harness between iterations (runtime.GC()
//     before each testing.B round, goroutine hand-offs) is not counted;
//   - countedNative (here) and testing.perflabCounted (the testing overlay) wrap the benchmark
//     function's own call: only that is counted, on the thread it runs on.
//
// So the count of a run is its benchmark calls, whatever threads its goroutines ran on.
var countMode = os.Getenv("PERFLAB_COUNT") == "1"

//go:noinline
func measuredRegion(loop func() *benchErr) *benchErr { return uncounted(loop) }

//go:noinline
func uncounted(loop func() *benchErr) *benchErr { return loop() }

//go:noinline
func countedNative(fn func(int), n int) { fn(n) }

// profilePath: profile mode (`perflab run --profile`; environment PERFLAB_PROFILE=<file>): each
// workload run is recorded by Go's own CPU profiler (runtime/pprof) into that file. Only the profile
// launch has it; a timed launch never does.
var profilePath = os.Getenv("PERFLAB_PROFILE")

// profiled runs loop under pprof.StartCPUProfile; a profile that cannot start fails the run with why.
func profiled(loop func() *benchErr) *benchErr {
	f, err := os.Create(profilePath)
	if err != nil {
		return &benchErr{kind: "exception", message: "profile: " + err.Error()}
	}
	defer f.Close()
	// 1 kHz rather than pprof's 100 Hz: a one-second run gets a usable number of samples. Set
	// first, StartCPUProfile keeps it (and says on stderr that it could not set its own 100 Hz).
	runtime.SetCPUProfileRate(1000)
	if err := pprof.StartCPUProfile(f); err != nil {
		return &benchErr{kind: "exception", message: "profile: " + err.Error()}
	}
	defer pprof.StopCPUProfile()
	return loop()
}

// timing is one iteration: wall ns, and the CPU ns the measuring thread got meanwhile.
type timing struct{ ns, cpu int64 }

// iteration returns a function that runs one timed iteration of the case with inv invocations
// (b.N = inv) and returns its elapsed (and CPU) nanoseconds: of the benchmark itself, or, with empty,
// of the empty function of the same shape (the overhead stage, and with_overhead's overhead iterations).
func (c *liveCase) iteration(empty bool) func(inv int) (timing, *benchErr) {
	if c.e.nat != nil {
		fn := c.fn
		if empty {
			fn = c.overhead
		}
		return func(inv int) (timing, *benchErr) { return timeNative(fn, inv) }
	}
	name, f, target := c.e.tb.Func, c.e.tb.F, c.target
	if empty {
		name, f = "BenchmarkPerflabOverhead", emptyN
		if c.e.tb.Loop && emptyLoopB != nil {
			f = emptyLoopB
		}
		target = name
	}
	return func(inv int) (timing, *benchErr) {
		r := tbRunner(name, f, target, inv, false)
		if berr := tbError(&r, target); berr != nil {
			c.failed = true
			return timing{}, berr
		}
		// the CPU time the testing package read beside the *B's own timer (Start/Stop/ResetTimer)
		return timing{r.T.Nanoseconds(), r.CPU.Nanoseconds()}, nil
	}
}

// timeNative times fn(n); the CPU clock is read just outside the two wall-clock reads.
func timeNative(fn func(int), n int) (t timing, e *benchErr) {
	defer func() {
		if p := recover(); p != nil {
			e = panicErr(p, string(debug.Stack()))
		}
	}()
	c0 := threadCPU()
	t0 := time.Now()
	if countMode {
		countedNative(fn, n)
	} else {
		fn(n)
	}
	ns := int64(time.Since(t0))
	return timing{ns, threadCPU() - c0}, nil
}

func (w *worker) diagnose(id any, inv, its int) {
	c := w.cur
	var m0, m1 runtime.MemStats
	var allocBytes, allocs uint64
	var notes []string
	metrics := map[string]float64{}
	var bytesPerOp int64
	var tbGCs uint32
	runtime.ReadMemStats(&m0)
	if c.e.nat != nil {
		for i := 0; i < its; i++ {
			if _, berr := timeNative(c.fn, inv); berr != nil {
				w.fail(id, berr)
				return
			}
		}
		runtime.ReadMemStats(&m1)
		allocBytes, allocs = m1.TotalAlloc-m0.TotalAlloc, m1.Mallocs-m0.Mallocs
	} else {
		for i := 0; i < its; i++ {
			r := tbRunner(c.e.tb.Func, c.e.tb.F, c.target, inv, false)
			if berr := tbError(&r, c.target); berr != nil {
				c.failed = true
				w.fail(id, berr)
				return
			}
			allocBytes += r.MemBytes
			allocs += r.MemAllocs
			tbGCs += r.GCs
			bytesPerOp = r.Bytes
			for k, v := range r.Extra {
				if !math.IsNaN(v) && !math.IsInf(v, 0) { // JSON has no NaN/Inf
					metrics[k] = v
				}
			}
		}
		runtime.ReadMemStats(&m1)
		notes = append(notes, "alloc/allocs: runtime.MemStats deltas while the *testing.B timer ran")
		if c.e.tb.Parallel {
			notes = append(notes, "RunParallel: the time is wall time per op over all its goroutines, as "+
				"go test reports it; the CPU time is the benchmark goroutine's thread's, which waits for "+
				"them, so the case is timed by the wall clock and preemption is not read from it")
		}
	}
	gcs := (m1.NumGC - m0.NumGC) - (m1.NumForcedGC - m0.NumForcedGC)
	if c.e.nat == nil {
		// testing.B: only the collections that ended while the *B's timer ran, not those its setup
		// (before ResetTimer, or a parent's before b.Run) caused
		gcs = tbGCs
		notes = append(notes, "gc: collections that ended while the *testing.B timer ran")
	}
	msg := map[string]any{"id": id, "type": "diagnostics", "invocations": inv, "iterations": its,
		"alloc_bytes": allocBytes, "allocs": allocs, "gc": []uint32{gcs}, "code_size": nil,
		"notes": append(nonNil(notes), "gc: collections not forced by runtime.GC (one generation)")}
	if bytesPerOp > 0 {
		msg["bytes_per_op"] = bytesPerOp // b.SetBytes: MB/s = bytes_per_op / ns_per_op * 1e3
	}
	if len(metrics) > 0 {
		msg["metrics"] = metrics // b.ReportMetric values of the last iteration, as reported
	}
	w.send(msg)
}

// ---------------------------------------------------------------------------------------------
// errors
// ---------------------------------------------------------------------------------------------

var outputLoc = regexp.MustCompile(`([^\s:]+\.go):(\d+):`)

func tbError(r *Result, target string) *benchErr {
	switch {
	case r.Panic != "":
		e := panicErr(r.Panic, r.Stack)
		if r.Name != "" && r.Name != target {
			e.message += " (in " + r.Name + ")"
		}
		return e
	case r.Failed:
		out := strings.TrimSpace(r.Output)
		if out == "" {
			out = "the benchmark failed (b.Fail/b.Error without a message)"
		}
		e := &benchErr{kind: "exception", message: squash(out), traceback: r.Output}
		if m := outputLoc.FindStringSubmatch(r.Output); m != nil {
			e.file = m[1]
			e.line, _ = strconv.Atoi(m[2])
		}
		return e
	case r.Skipped:
		// kind skipped: the host shows the case as SKIPPED with this reason, not as failed (go test
		// passes a skipped benchmark)
		why := squash(strings.TrimSpace(r.Output))
		if why == "" {
			why = "b.SkipNow (no reason given)"
		}
		e := &benchErr{kind: "skipped", message: why}
		if m := outputLoc.FindStringSubmatch(r.Output); m != nil {
			e.file = m[1]
			e.line, _ = strconv.Atoi(m[2])
			// the host adds (file:line): the reason alone, as `--- SKIP` prints it under the name
			e.message = strings.TrimSpace(strings.TrimPrefix(why, m[0]))
		}
		return e
	case !r.Found && r.Name == target:
		return &benchErr{kind: "exception", message: fmt.Sprintf("%s calls b.Run, but perflab did not see "+
			"that at load (b.Run is reached through code outside the function's body); its sub-benchmarks "+
			"cannot be selected", target)}
	case !r.Found:
		return &benchErr{kind: "exception",
			message: fmt.Sprintf("%s was not run (the benchmark no longer calls b.Run with that name)", target)}
	}
	return nil
}

func squash(s string) string {
	fields := strings.Fields(s)
	out := strings.Join(fields, " ")
	if len(out) > 2000 {
		out = out[:2000] + "…"
	}
	return out
}

func panicErr(p any, stack string) *benchErr {
	var msg string
	switch v := p.(type) {
	case string:
		msg = v
	case error:
		msg = v.Error()
	default:
		msg = fmt.Sprint(v)
	}
	e := &benchErr{kind: "exception", message: "panic: " + msg, traceback: stack}
	e.file, e.line = userFrame(stack)
	return e
}

var frameLoc = regexp.MustCompile(`^\t(.+\.go):(\d+)`)

// userFrame is the innermost frame of a panic stack that is neither the runtime, the testing package
// nor this worker: where the user's code panicked.
func userFrame(stack string) (string, int) {
	lines := strings.Split(stack, "\n")
	afterPanic := !strings.Contains(stack, "panic(")
	for i := 0; i+1 < len(lines); i++ {
		fn := lines[i]
		if strings.HasPrefix(fn, "panic(") {
			afterPanic = true
			continue
		}
		m := frameLoc.FindStringSubmatch(lines[i+1])
		if m == nil || !afterPanic {
			continue
		}
		if strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "runtime/debug.") ||
			strings.HasPrefix(fn, "testing.") || strings.HasPrefix(fn, "perflab.dev/go/perflab.") {
			continue
		}
		line, _ := strconv.Atoi(m[2])
		return m[1], line
	}
	return "", 0
}
