package perflab

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

var opsSeen int

// twinRan records which of the two "twin" benchmarks (same Name, distinct ID) ran last.
var twinRan string

// pairRuns records the calls of the "paired" benchmark ("w<n>") and of its empty function ("o<n>").
var pairRuns []string

func init() {
	Bench("loop", func(n int) {
		s := 0
		for i := 0; i < n; i++ {
			s += i
		}
		Sink(s)
	}, Baseline(), Ops(2), Categories("demo"), Description("sums"), Meta("seed", "002", "section", "Seek/Position"))
	Func("func", func() int { opsSeen++; return opsSeen })
	Bench("boom", func(n int) { panic("boom") })
	Register(Benchmark{Name: "twin", Fn: func(n int) { twinRan = "plain" }})
	Register(Benchmark{Name: "twin", ID: "twin_large", Categories: []string{"large"},
		Fn: func(n int) { twinRan = "large" }})
	Register(Benchmark{Name: "paired",
		Fn:       func(n int) { pairRuns = append(pairRuns, "w"+strconv.Itoa(n)) },
		overhead: func(n int) { pairRuns = append(pairRuns, "o"+strconv.Itoa(n)) }})
	Register(Benchmark{
		Name:   "sized",
		Params: []Axis{{Name: "n", Values: []string{"1", "10", "100"}}},
		Setup: func(p map[string]string) func(int) {
			size, _ := strconv.Atoi(p["n"])
			return func(n int) {
				for i := 0; i < n; i++ {
					Sink(make([]byte, size*64))
				}
			}
		},
	})
}

// host is a minimal protocol-v2 host for the tests.
type host struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
	id   int
	done chan error
}

func startWorker(t *testing.T) (*host, map[string]any) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	t.Setenv("PERFLAB_CONNECT", ln.Addr().String())
	t.Setenv("PERFLAB_TOKEN", "0123456789abcdef0123456789abcdef")
	h := &host{t: t, done: make(chan error, 1)}
	go func() { h.done <- Serve() }()
	h.conn, err = ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	h.r = bufio.NewReader(h.conn)
	hello := h.read()
	t.Cleanup(func() { h.conn.Close() })
	return h, hello
}

func (h *host) read() map[string]any {
	h.t.Helper()
	_ = h.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	line, err := h.r.ReadBytes('\n')
	if err != nil {
		h.t.Fatalf("read: %v", err)
	}
	var msg map[string]any
	if err := json.Unmarshal(line, &msg); err != nil {
		h.t.Fatalf("reply is not JSON: %q", line)
	}
	if msg["v"] != float64(2) {
		h.t.Fatalf("reply without v=2: %v", msg)
	}
	return msg
}

func (h *host) ask(typ string, fields map[string]any) map[string]any {
	h.t.Helper()
	h.id++
	msg := map[string]any{"v": 2, "id": h.id, "type": typ}
	for k, v := range fields {
		msg[k] = v
	}
	data, _ := json.Marshal(msg)
	if _, err := h.conn.Write(append(data, '\n')); err != nil {
		h.t.Fatal(err)
	}
	reply := h.read()
	if reply["id"] != float64(h.id) {
		h.t.Fatalf("reply id %v, want %d", reply["id"], h.id)
	}
	return reply
}

func errKind(reply map[string]any) string {
	if reply["type"] != "error" {
		return ""
	}
	return reply["error"].(map[string]any)["kind"].(string)
}

func TestHello(t *testing.T) {
	_, hello := startWorker(t)
	if hello["type"] != "hello" || hello["language"] != "go" || hello["token"] != os.Getenv("PERFLAB_TOKEN") {
		t.Fatalf("bad hello: %v", hello)
	}
	if hello["unroll"] != float64(1) {
		t.Fatalf("unroll: %v", hello["unroll"])
	}
	if caps := hello["capabilities"]; !reflect.DeepEqual(caps, []any{"alloc", "allocs", "gc", "with_overhead", "overhead_first"}) {
		t.Fatalf("capabilities: %v", caps)
	}
}

func TestNativeFlow(t *testing.T) {
	h, _ := startWorker(t)
	loaded := h.ask("load", map[string]any{"paths": []string{}, "root": ""})
	if loaded["type"] != "loaded" {
		t.Fatalf("load: %v", loaded)
	}
	ids := map[string]map[string]any{}
	for _, b := range loaded["benchmarks"].([]any) {
		m := b.(map[string]any)
		ids[m["name"].(string)] = m
	}
	loop := ids["loop"]
	if loop["id"] != "perflab.dev/go/perflab.loop" || loop["group"] != "perflab" || loop["baseline"] != true ||
		loop["ops_per_invoke"] != float64(2) || !strings.HasSuffix(loop["file"].(string), "worker_test.go") {
		t.Fatalf("loop described as %v", loop)
	}
	if got := loop["meta"]; !reflect.DeepEqual(got, map[string]any{"seed": "002", "section": "Seek/Position"}) {
		t.Fatalf("loop meta: %v", got)
	}
	if got := ids["sized"]["params"]; !reflect.DeepEqual(got, []any{map[string]any{"name": "n",
		"values": []any{"1", "10", "100"}}}) {
		t.Fatalf("sized params: %v", got)
	}
	if r := h.ask("setup", map[string]any{"benchmark": loop["id"], "params": map[string]any{}}); r["type"] != "ready" {
		t.Fatalf("setup: %v", r)
	}
	for _, stage := range []string{"pilot", "warmup", "overhead", "workload"} {
		r := h.ask("run", map[string]any{"stage": stage, "invocations": 1000, "iterations": 3})
		if r["type"] != "samples" || len(r["ns"].([]any)) != 3 || r["stage"] != stage || r["invocations"] != float64(1000) {
			t.Fatalf("%s: %v", stage, r)
		}
	}
	d := h.ask("run", map[string]any{"stage": "diagnose", "invocations": 100, "iterations": 2})
	if d["type"] != "diagnostics" || d["allocs"].(float64) > 16 { // process-wide counters: allow stray runtime allocations
		t.Fatalf("diagnose loop: %v", d)
	}
	h.ask("teardown", nil)

	h.ask("setup", map[string]any{"benchmark": ids["sized"]["id"], "params": map[string]any{"n": 2}})
	d = h.ask("run", map[string]any{"stage": "diagnose", "invocations": 100, "iterations": 2})
	if d["allocs"].(float64) < 200 || d["alloc_bytes"].(float64) < 200*6400 {
		t.Fatalf("diagnose sized: %v", d)
	}
	h.ask("teardown", nil)

	before := opsSeen
	h.ask("setup", map[string]any{"benchmark": ids["func"]["id"], "params": map[string]any{}})
	h.ask("run", map[string]any{"stage": "workload", "invocations": 50, "iterations": 2})
	if opsSeen-before != 100 {
		t.Fatalf("Func called %d times, want 100", opsSeen-before)
	}
	h.ask("teardown", nil)

	h.ask("setup", map[string]any{"benchmark": ids["boom"]["id"], "params": map[string]any{}})
	r := h.ask("run", map[string]any{"stage": "workload", "invocations": 1, "iterations": 1})
	e := r["error"].(map[string]any)
	if errKind(r) != "exception" || !strings.Contains(e["message"].(string), "boom") ||
		!strings.HasSuffix(e["file"].(string), "worker_test.go") {
		t.Fatalf("boom: %v", r)
	}
	// still usable
	if r := h.ask("run", map[string]any{"stage": "workload", "invocations": 1, "iterations": 1}); errKind(r) != "exception" {
		t.Fatalf("after boom: %v", r)
	}
	if r := h.ask("bye", nil); r["type"] != "done" {
		t.Fatalf("bye: %v", r)
	}
	if err := <-h.done; err != nil {
		t.Fatal(err)
	}
}

// with_overhead: every workload iteration is followed by one overhead iteration of the same
// invocations, whose times come back in overhead_ns; other stages refuse it.
func TestWithOverhead(t *testing.T) {
	h, _ := startWorker(t)
	h.ask("load", map[string]any{"paths": []string{}})
	samples := func(r map[string]any, field string, want int) {
		t.Helper()
		list, ok := r[field].([]any)
		if r["type"] != "samples" || !ok || len(list) != want {
			t.Fatalf("%s: want %d samples, got %v", field, want, r)
		}
		for _, x := range list {
			if v := x.(float64); v < 0 || v != float64(int64(v)) {
				t.Fatalf("%s: %v is not a non-negative integer", field, x)
			}
		}
	}

	h.ask("setup", map[string]any{"benchmark": "perflab.dev/go/perflab.paired", "params": map[string]any{}})
	pairRuns = nil
	r := h.ask("run", map[string]any{"stage": "workload", "invocations": 7, "iterations": 3, "with_overhead": true})
	samples(r, "ns", 3)
	samples(r, "overhead_ns", 3)
	if want := []string{"w7", "o7", "w7", "o7", "w7", "o7"}; !reflect.DeepEqual(pairRuns, want) {
		t.Fatalf("calls %v, want %v", pairRuns, want)
	}
	// overhead_first: the empty iteration before its workload one (the host alternates the orders)
	pairRuns = nil
	r = h.ask("run", map[string]any{"stage": "workload", "invocations": 4, "iterations": 2,
		"with_overhead": true, "overhead_first": true})
	samples(r, "ns", 2)
	samples(r, "overhead_ns", 2)
	if want := []string{"o4", "w4", "o4", "w4"}; !reflect.DeepEqual(pairRuns, want) {
		t.Fatalf("overhead_first: calls %v, want %v", pairRuns, want)
	}
	for _, wo := range []any{false, nil} {
		pairRuns = nil
		fields := map[string]any{"stage": "workload", "invocations": 5, "iterations": 2}
		if wo != nil {
			fields["with_overhead"] = wo
		}
		r = h.ask("run", fields)
		samples(r, "ns", 2)
		if _, has := r["overhead_ns"]; has {
			t.Fatalf("with_overhead=%v: overhead_ns sent though not asked for: %v", wo, r)
		}
		if want := []string{"w5", "w5"}; !reflect.DeepEqual(pairRuns, want) {
			t.Fatalf("with_overhead=%v: calls %v, want %v", wo, pairRuns, want)
		}
	}
	pairRuns = nil
	for _, stage := range []string{"pilot", "warmup", "overhead", "diagnose"} {
		r = h.ask("run", map[string]any{"stage": stage, "invocations": 4, "iterations": 1, "with_overhead": true})
		if errKind(r) != "protocol" || !strings.Contains(r["error"].(map[string]any)["message"].(string), "workload") {
			t.Fatalf("%s with_overhead: %v", stage, r)
		}
	}
	if len(pairRuns) != 0 {
		t.Fatalf("a refused run ran %v", pairRuns)
	}
	h.ask("teardown", nil)

	// a real benchmark: both kinds of iteration take time
	h.ask("setup", map[string]any{"benchmark": "perflab.dev/go/perflab.loop", "params": map[string]any{}})
	r = h.ask("run", map[string]any{"stage": "workload", "invocations": 1000, "iterations": 2, "with_overhead": true})
	samples(r, "ns", 2)
	samples(r, "overhead_ns", 2)
	if hasCPUClock { // protocol v2: the thread's CPU time per iteration, at most wall + the host's 1 ms slack
		samples(r, "cpu_ns", 2)
		samples(r, "overhead_cpu_ns", 2)
		for _, f := range [][2]string{{"ns", "cpu_ns"}, {"overhead_ns", "overhead_cpu_ns"}} {
			for i, c := range r[f[1]].([]any) {
				if wall := r[f[0]].([]any)[i].(float64); c.(float64) > wall+1e6 {
					t.Fatalf("%s[%d] = %v exceeds wall %v: %v", f[1], i, c, wall, r)
				}
			}
		}
	}
	h.ask("teardown", nil)

	// a panic in the workload iteration is the run's error, as without with_overhead
	h.ask("setup", map[string]any{"benchmark": "perflab.dev/go/perflab.boom", "params": map[string]any{}})
	r = h.ask("run", map[string]any{"stage": "workload", "invocations": 1, "iterations": 2, "with_overhead": true})
	if errKind(r) != "exception" {
		t.Fatalf("boom with_overhead: %v", r)
	}
	h.ask("teardown", nil)
}

func TestErrors(t *testing.T) {
	h, _ := startWorker(t)
	if k := errKind(h.ask("run", map[string]any{"stage": "workload", "invocations": 1, "iterations": 1})); k != "state" {
		t.Fatalf("run before setup: %q", k)
	}
	h.ask("load", map[string]any{"paths": []string{}})
	if k := errKind(h.ask("setup", map[string]any{"benchmark": "nope"})); k != "not_found" {
		t.Fatalf("unknown benchmark: %q", k)
	}
	if k := errKind(h.ask("setup", map[string]any{"benchmark": "perflab.dev/go/perflab.sized",
		"params": map[string]any{"n": 9}})); k != "not_found" {
		t.Fatalf("bad index: %q", k)
	}
	if k := errKind(h.ask("frobnicate", nil)); k != "protocol" {
		t.Fatalf("unknown type: %q", k)
	}
	if k := errKind(h.ask("load", nil)); k != "protocol" {
		t.Fatalf("load without paths: %q", k)
	}
	// a line that is not a JSON object
	_, _ = h.conn.Write([]byte("[1,2]\n"))
	if r := h.read(); errKind(r) != "protocol" {
		t.Fatalf("non-object: %v", r)
	}
	// another protocol version ends the conversation
	_, _ = h.conn.Write([]byte(`{"v":3,"id":99,"type":"bye"}` + "\n"))
	if r := h.read(); errKind(r) != "version" {
		t.Fatalf("version: %v", r)
	}
	if err := <-h.done; err != nil {
		t.Fatal(err)
	}
}

func TestSubAxes(t *testing.T) {
	cases := []struct {
		leaves []string
		want   []axisJSON
	}{
		{[]string{"B/n=1", "B/n=10"}, []axisJSON{{"n", []string{"1", "10"}}}},
		{[]string{"B/x", "B/y"}, []axisJSON{{"case", []string{"x", "y"}}}},
		{[]string{"B/s=1/a=x", "B/s=1/a=y", "B/s=2/a=x", "B/s=2/a=y"},
			[]axisJSON{{"s", []string{"1", "2"}}, {"a", []string{"x", "y"}}}},
		{[]string{"B/s=1/a=x", "B/s=2/a=y"}, []axisJSON{{"case", []string{"s=1/a=x", "s=2/a=y"}}}},
		{[]string{"B/p/q", "B/r"}, []axisJSON{{"case", []string{"p/q", "r"}}}},
		{[]string{"B/a/x", "B/a/y", "B/b/x", "B/b/y"},
			[]axisJSON{{"level1", []string{"a", "b"}}, {"level2", []string{"x", "y"}}}},
	}
	for _, c := range cases {
		e := &entry{}
		e.setSubAxes("B", c.leaves)
		if !reflect.DeepEqual(e.Params, c.want) {
			t.Errorf("%v: got %v, want %v", c.leaves, e.Params, c.want)
		}
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{"BenchmarkSort": "Sort", "Benchmark_noop": "noop", "Benchmark": "Benchmark"} {
		if got := displayName(in); got != want {
			t.Errorf("displayName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := packageOf("example.com/a/b.init.0"); got != "example.com/a/b" {
		t.Errorf("packageOf: %q", got)
	}
	if got := groupOf("example.com/a/b_test"); got != "b" {
		t.Errorf("groupOf: %q", got)
	}
}

func TestUserFrame(t *testing.T) {
	stack := "goroutine 7 [running]:\nruntime/debug.Stack()\n\t/go/src/runtime/debug/stack.go:26 +0x5e\n" +
		"panic({0x1, 0x2})\n\t/go/src/runtime/panic.go:770 +0x132\n" +
		"example.com/x.BenchmarkBoom(0xc0)\n\t/src/x/x_test.go:12 +0x25\n" +
		"testing.(*B).runN(0xc0, 0x1)\n\t/go/src/testing/benchmark.go:193 +0xf8\n"
	if f, l := userFrame(stack); f != "/src/x/x_test.go" || l != 12 {
		t.Fatalf("userFrame = %s:%d", f, l)
	}
}

// The dead-code trap: Sink keeps a pure computation alive, so it costs what it costs.
func TestSinkKeepsWork(t *testing.T) {
	work := func(n int) {
		var x uint64 = 7
		for i := 0; i < n; i++ {
			for j := 0; j < 100; j++ {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
			}
		}
		Sink(x)
	}
	best := time.Hour
	for k := 0; k < 5; k++ {
		t0 := time.Now()
		work(10000)
		if d := time.Since(t0); d < best {
			best = d
		}
	}
	if perOp := best / 10000; perOp < 20*time.Nanosecond {
		t.Fatalf("300 dependent xor-shifts took %v: the work was eliminated", perOp)
	}
}

func TestSinkDoesNotAllocate(t *testing.T) {
	if a := testing.AllocsPerRun(100, func() { Sink(12345678); Sink("s"); Sink([4]int{1, 2, 3, 4}) }); a != 0 {
		t.Fatalf("Sink allocated %v times", a)
	}
}

// Two benchmarks may share a Name when their IDs differ; each id sets up its own benchmark.
func TestExplicitID(t *testing.T) {
	h, _ := startWorker(t)
	loaded := h.ask("load", map[string]any{"paths": []string{}})
	if errs := loaded["errors"].([]any); len(errs) != 0 {
		t.Fatalf("load errors: %v", errs)
	}
	var ids []string
	for _, b := range loaded["benchmarks"].([]any) {
		if m := b.(map[string]any); m["name"] == "twin" {
			ids = append(ids, m["id"].(string))
		}
	}
	want := []string{"perflab.dev/go/perflab.twin", "perflab.dev/go/perflab.twin_large"}
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("twin ids: %v, want %v", ids, want)
	}
	for i, ran := range []string{"plain", "large"} {
		if r := h.ask("setup", map[string]any{"benchmark": want[i], "params": map[string]any{}}); r["type"] != "ready" {
			t.Fatalf("setup %s: %v", want[i], r)
		}
		h.ask("run", map[string]any{"stage": "workload", "invocations": 1, "iterations": 1})
		if twinRan != ran {
			t.Fatalf("setup %s ran the %q twin", want[i], twinRan)
		}
		h.ask("teardown", nil)
	}
}

// A duplicate id keeps its first registration and is reported as a load error.
func TestDedupe(t *testing.T) {
	a := &entry{ID: "p.x", File: "/a.go", Line: 1}
	b := &entry{ID: "p.y", File: "/a.go", Line: 2}
	c := &entry{ID: "p.x", File: "/b.go", Line: 3}
	out, errs := dedupe([]*entry{a, b, c})
	if !reflect.DeepEqual(out, []*entry{a, b}) {
		t.Fatalf("kept %v", out)
	}
	if len(errs) != 1 || errs[0]["kind"] != "load" || errs[0]["file"] != "/b.go" || errs[0]["line"] != 3 ||
		!strings.Contains(errs[0]["message"].(string), `"p.x"`) || !strings.Contains(errs[0]["message"].(string), "/a.go:1") {
		t.Fatalf("errors: %v", errs)
	}
}

// A failed package's load errors (perflab-go-mux's) are reported by `load` for the paths that select
// their files, and only for those.
func TestAddLoadError(t *testing.T) {
	t.Cleanup(func() { regMu.Lock(); failedLoads = nil; regMu.Unlock() })
	AddLoadError(map[string]any{"file": "/nowhere/pkg/broken_test.go", "line": 5, "kind": "load",
		"message":   "go test -c failed: /nowhere/pkg/broken_test.go:6:2: undefined: x",
		"benchmark": map[string]any{"id": "example.com/pkg.BenchmarkBroken", "name": "Broken", "group": "pkg"}})
	h, _ := startWorker(t)
	loaded := h.ask("load", map[string]any{"paths": []string{"/nowhere/pkg"}})
	errs := loaded["errors"].([]any)
	if len(errs) != 1 || len(loaded["benchmarks"].([]any)) != 0 {
		t.Fatalf("load of the failed package: %v", loaded)
	}
	e := errs[0].(map[string]any)
	if e["line"] != float64(5) || e["benchmark"].(map[string]any)["name"] != "Broken" ||
		!strings.Contains(e["message"].(string), "broken_test.go:6:2") {
		t.Fatalf("error: %v", e)
	}
	other := h.ask("load", map[string]any{"paths": []string{"/elsewhere"}})
	if len(other["errors"].([]any)) != 0 {
		t.Fatalf("another path got the failed package's errors: %v", other)
	}
}
