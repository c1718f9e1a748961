package collectionslinq

// Collections and LINQ experiments of seeds 000 and 003. Dictionary<K,V> ↔ map, arrays and spans ↔
// slices (the slices and maps packages of Go 1.21), PriorityQueue ↔ container/heap, ConcurrentQueue
// ↔ a buffered channel (Go's concurrent FIFO), TimeSpan ↔ time.Duration.

import (
	"container/heap"
	"maps"
	"math/rand"
	"slices"
	"strconv"
	"time"

	"perflab.dev/go/perflab"
)

func meta(seed, section string) perflab.Option { return perflab.Meta("seed", seed, "section", section) }

const s000 = "Collections and LINQ"

var collections = perflab.Categories("collections")

var dictionary = func() map[string]int {
	d := make(map[string]int, 100)
	for i := 0; i < 100; i++ {
		d[strconv.Itoa(i)] = i
	}
	return d
}()

var (
	strs   []string        // 100 000 strings "0" … "99999"
	e1, e2 []int           // two equal 1 000 000-int slices
	spans  []time.Duration // 1 000 000 durations of i milliseconds
)

// linqSetup builds the large inputs once per case (the seed's field initializers).
func linqSetup(fn func() any) func(map[string]string) func(int) {
	return func(map[string]string) func(int) {
		if strs == nil {
			strs = make([]string, 100000)
			for i := range strs {
				strs[i] = strconv.Itoa(i)
			}
			e1, e2 = make([]int, 1000000), make([]int, 1000000)
			spans = make([]time.Duration, 1000000)
			for i := range e1 {
				e1[i], e2[i] = i, i
				spans[i] = time.Duration(i) * time.Millisecond
			}
		}
		return func(n int) {
			var r any
			for i := 0; i < n; i++ {
				r = fn()
			}
			perflab.Sink(r)
		}
	}
}

func linqTeardown() { strs, e1, e2, spans = nil, nil, nil, nil }

var range100 = func() []int {
	s := make([]int, 100)
	for i := range s {
		s[i] = i
	}
	return s
}()

var takeLast = make([]int, 1000)

// floatHeap is a min-heap of float64 for container/heap.
type floatHeap []float64

func (h floatHeap) Len() int           { return len(h) }
func (h floatHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h floatHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *floatHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *floatHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func enqueueDequeue(p map[string]string) func(int) {
	size, err := strconv.Atoi(p["n"])
	if err != nil {
		panic(err)
	}
	rnd := rand.New(rand.NewSource(42))
	items := make([]float64, size)
	for i := range items {
		items[i] = rnd.Float64()
	}
	return func(n int) {
		var last float64
		for i := 0; i < n; i++ {
			h := &floatHeap{}
			for _, x := range items {
				heap.Push(h, x)
			}
			for h.Len() > 0 {
				last = heap.Pop(h).(float64)
			}
		}
		perflab.Sink(last)
	}
}

// queue: ConcurrentQueue<int> holding 100 items (the seed's Setup).
var queue = func() chan int {
	q := make(chan int, 1024)
	for i := 0; i < 100; i++ {
		q <- i
	}
	return q
}()

// counts: the seed's `_counts` field, a dictionary that lives as long as the case.
var counts = map[int]int{}

func init() {
	perflab.Func("Clone", func() map[string]int { return maps.Clone(dictionary) },
		perflab.Categories("collections", "quick"), meta("000", s000), perflab.Meta("fidelity", "faithful"),
		perflab.Group("Dictionary"),
		perflab.Description("new Dictionary<string,int>(100 entries) ↔ maps.Clone"))
	perflab.Func("AddNew", func() map[int]int {
		for i := 0; i < 10_000; i++ {
			counts[i]++ // one lookup that adds the entry when missing (GetValueRefOrAddDefault)
		}
		return counts
	}, collections, meta("000", s000), perflab.Meta("fidelity", "faithful"), perflab.Group("Dictionary"),
		perflab.Description("counts[i]++ for keys 0..9999 on one map that lives as long as the case"))

	perflab.Register(perflab.Benchmark{Name: "DistinctCount", Group: "Linq", Categories: []string{"collections"},
		Meta:        map[string]string{"seed": "000", "section": s000, "fidelity": "faithful"},
		Description: "Distinct().Count() over 100 000 strings ↔ the size of a map[string]struct{} set",
		Setup: linqSetup(func() any {
			set := make(map[string]struct{})
			for _, s := range strs {
				set[s] = struct{}{}
			}
			return len(set)
		}), Teardown: linqTeardown})
	perflab.Register(perflab.Benchmark{Name: "SequenceEqual", Group: "Linq", Categories: []string{"collections"},
		Meta:        map[string]string{"seed": "000", "section": s000, "fidelity": "faithful"},
		Description: "Two equal 1 000 000-int slices ↔ slices.Equal",
		Setup:       linqSetup(func() any { return slices.Equal(e1, e2) }), Teardown: linqTeardown})
	perflab.Register(perflab.Benchmark{Name: "Max", Group: "Linq", Categories: []string{"collections"},
		Meta:        map[string]string{"seed": "000", "section": s000, "fidelity": "faithful"},
		Description: "slices.Max of 1 000 000 time.Durations",
		Setup:       linqSetup(func() any { return slices.Max(spans) }), Teardown: linqTeardown})
	perflab.Register(perflab.Benchmark{Name: "Min", Group: "Linq", Categories: []string{"collections"},
		Meta:        map[string]string{"seed": "000", "section": s000, "fidelity": "faithful"},
		Description: "slices.Min of 1 000 000 time.Durations",
		Setup:       linqSetup(func() any { return slices.Min(spans) }), Teardown: linqTeardown})

	perflab.Func("RangeSelectToArray", func() []int {
		out := make([]int, 0, len(range100))
		for _, i := range range100 {
			out = append(out, i*2)
		}
		return out
	}, collections, meta("003", "LINQ"),
		perflab.Meta("fidelity", "partial: no LINQ in Go's std; a loop into a new slice stands for Range/Select/ToArray"),
		perflab.Description("Enumerable.Range(0, 100).Select(i => i * 2).ToArray() ↔ a loop into a new slice"))
	perflab.Func("SumLast10", func() int {
		s := 0
		for _, v := range takeLast[len(takeLast)-10:] {
			s += v
		}
		return s
	}, collections, meta("003", "LINQ"),
		perflab.Meta("fidelity", "partial: no LINQ in Go's std; a loop over a slice's last 10, where the seed's TakeLast goes through a lazy Select"),
		perflab.Description("TakeLast(10).Sum() over 1000 ints ↔ sum of the last 10 of a slice"))

	perflab.Register(perflab.Benchmark{Name: "EnqueueDequeue", Group: "PriorityQueue", Categories: []string{"collections"},
		Meta:        map[string]string{"extra": "true", "related": "000 · " + s000},
		Description: "PriorityQueue ↔ container/heap: push n random float64s, then pop them all",
		Params:      []perflab.Axis{{Name: "n", Values: []string{"1000"}}}, Setup: enqueueDequeue})

	perflab.Func("EnqueueCountDequeue", func() int {
		queue <- 42
		n := len(queue)
		<-queue
		return n
	}, collections, meta("003", "Collections"),
		perflab.Meta("fidelity", "partial: no concurrent queue type in Go's std; a buffered channel (a ring under a lock) holding 100 stands for the lock-free ConcurrentQueue"),
		perflab.Description("ConcurrentQueue Enqueue/Count/TryDequeue ↔ send, len, receive on a buffered channel holding 100"))
}
