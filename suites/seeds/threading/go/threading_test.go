package threading

// Threading experiments of seeds 000 (".NET 6": Threading), 001 (threading sections of .NET 6/7/8)
// and 003 (".NET Core 3.0": Threading), ported to goroutines, channels, sync and context. Names
// follow the seeds' methods. A CancellationTokenSource is a context.WithCancel pair (its Dispose is
// the cancel func), Register/Dispose is context.AfterFunc and its stop func, a thread-pool work
// item is a goroutine, a Channel<int> a buffered channel, SemaphoreSlim a one-slot channel.

import (
	"context"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"perflab.dev/go/perflab"
)

func meta(seed, section string) perflab.Option { return perflab.Meta("seed", seed, "section", section) }

// fidelity says how faithful a port is (suites/seeds/README.md, "Fidelity"); none means not audited.
func fidelity(f string) perflab.Option { return perflab.Meta("fidelity", f) }

// extra tags a benchmark that is not a method of the seed: no seed tags, so no claim is checked on it.
func extra(related string) perflab.Option { return perflab.Meta("extra", "true", "related", related) }

var threading = perflab.Categories("threading")

// -- Thread-pool starvation (000 "Threading", a console app with a stopwatch) ------------------------

// starvation is the seed's whole scenario once: `items` work items that block until a final one
// releases them, each on a goroutine of its own (go f() is Go's Task.Run); time until all are done.
// A blocked goroutine parks without holding an OS thread, so nothing has to be injected.
func starvation(items, workers int) {
	release := make(chan struct{})
	var wg sync.WaitGroup
	if workers != items+1 {
		panic("workers must be items + 1: the blocked work items and the one that releases them")
	}
	wg.Add(workers)
	for i := 0; i < items; i++ {
		go func() {
			defer wg.Done()
			<-release // tcs.Task.Wait()
		}()
	}
	go func() {
		defer wg.Done()
		close(release) // tcs.SetResult()
	}()
	wg.Wait()
}

// -- CancellationToken register/dispose (000 "Threading") -------------------------------------------

var (
	sourceCtx, sourceCancel = context.WithCancel(context.Background()) // the seed's _source / _cts
	noop                    = func() {}
)

// registrations per call: the seed makes 1 000 000, which takes seconds per call here (ops keeps the figure per pair)
const many = 10000

const manyFidelity = "partial: 10 000 registrations per call instead of 1 000 000"

func createManyRegisterDispose(n int) {
	for i := 0; i < n; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		for k := 0; k < many; k++ {
			stop := context.AfterFunc(ctx, noop)
			stop()
		}
		cancel()
	}
}

func createManyRegisterMultipleDispose(n int) {
	for i := 0; i < n; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		for k := 0; k < many; k++ {
			stop1 := context.AfterFunc(ctx, noop)
			stop2 := context.AfterFunc(ctx, noop)
			stop3 := context.AfterFunc(ctx, noop)
			stop4 := context.AfterFunc(ctx, noop)
			stop5 := context.AfterFunc(ctx, noop)
			stop5()
			stop4()
			stop3()
			stop2()
			stop1()
		}
		cancel()
	}
}

// -- SemaphoreSlim.WaitAsync with a token / a timeout (000 "Threading") ------------------------------

var sem = make(chan struct{}, 1) // SemaphoreSlim(0, 1)

// -- Channels PingPong (003 "Threading") -------------------------------------------------------------

const roundTrips = 10000

var pingPong struct {
	to, back chan int
}

func setupPingPong(map[string]string) func(int) {
	to, back := make(chan int, 1), make(chan int, 1)
	pingPong.to, pingPong.back = to, back
	go func() { // the seed's echo task: read from one channel, write to the other
		for v := range to {
			back <- v
		}
	}()
	return func(n int) {
		for i := 0; i < n; i++ {
			for k := 0; k < roundTrips; k++ {
				to <- k
				<-back
			}
		}
	}
}

func teardownPingPong() {
	close(pingPong.to)
	pingPong.to, pingPong.back = nil, nil
}

// -- Parallel (001 "Parallel", 000 "Threading") -------------------------------------------------------

var countAxis = []perflab.Axis{{Name: "count", Values: []string{"1000"}}}

// parallelFor: Parallel.For over [0, count) on GOMAXPROCS goroutines taking chunks of 64 indices.
func parallelFor(count int) int64 {
	const chunk = 64
	workers := runtime.GOMAXPROCS(0)
	var next, sum atomic.Int64
	var wg sync.WaitGroup
	wg.Add(workers)
	for w := 0; w < workers; w++ {
		go func() {
			defer wg.Done()
			var local int64
			for {
				start := next.Add(chunk) - chunk
				if start >= int64(count) {
					break
				}
				for i := start; i < min(start+chunk, int64(count)); i++ {
					local += i * i
				}
			}
			sum.Add(local)
		}()
	}
	wg.Wait()
	return sum.Load()
}

// parallelForEachAsync: a goroutine per element (Parallel.ForEachAsync's body as a task each).
func parallelForEachAsync(count int) int64 {
	results := make([]int64, count)
	var wg sync.WaitGroup
	wg.Add(count)
	for i := 0; i < count; i++ {
		go func(i int) {
			defer wg.Done()
			results[i] = int64(i) * int64(i)
		}(i)
	}
	wg.Wait()
	var sum int64
	for _, r := range results {
		sum += r
	}
	return sum
}

func withCount(f func(count int) int64) func(map[string]string) func(int) {
	return func(p map[string]string) func(int) {
		count, err := strconv.Atoi(p["count"])
		if err != nil {
			panic(err)
		}
		return func(n int) {
			var s int64
			for i := 0; i < n; i++ {
				s += f(count)
			}
			perflab.Sink(s)
		}
	}
}

func init() {
	perflab.Register(perflab.Benchmark{Name: "ThreadPoolStarvation", Categories: []string{"threading", "quick"},
		Meta: map[string]string{"seed": "000", "section": "Threading", "scenario": "true",
			"fidelity": "different: a blocked goroutine parks without holding a thread, so Go has no pool to starve"},
		Description: "The seed's console app: 48 goroutines block on a channel that a 49th closes; time until all are done",
		Params:      []perflab.Axis{{Name: "items", Values: []string{"48"}}, {Name: "workers", Values: []string{"49"}}},
		Setup: func(p map[string]string) func(int) {
			items, err := strconv.Atoi(p["items"])
			if err != nil {
				panic(err)
			}
			workers, err := strconv.Atoi(p["workers"])
			if err != nil {
				panic(err)
			}
			return func(n int) {
				for i := 0; i < n; i++ {
					starvation(items, workers)
				}
			}
		}})

	perflab.Func("CreateTokenDispose", func() context.Context {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx
	}, threading, meta("000", "Threading"), fidelity("faithful"),
		perflab.Description("context.WithCancel, then its cancel func (Dispose)"))
	perflab.Func("CreateRegisterDispose", func() context.Context {
		ctx, cancel := context.WithCancel(context.Background())
		stop := context.AfterFunc(ctx, noop)
		stop()
		cancel()
		return ctx
	}, threading, meta("000", "Threading"), fidelity("faithful"),
		perflab.Description("context.WithCancel, context.AfterFunc and its stop func, cancel"))
	perflab.Func("CreateLinkedTokenDispose", func() context.Context {
		ctx, cancel := context.WithCancel(sourceCtx)
		cancel()
		return ctx
	}, threading, meta("000", "Threading"), fidelity("faithful"),
		perflab.Description("A context linked to a long-lived cancelable parent, then cancel"))
	perflab.Bench("CreateManyRegisterDispose", createManyRegisterDispose, threading, perflab.Ops(many),
		meta("000", "Threading"), fidelity(manyFidelity), perflab.Description("One context, 10 000 AfterFunc/stop pairs per call (seed: 1 000 000)"))
	perflab.Bench("CreateManyRegisterMultipleDispose", createManyRegisterMultipleDispose, threading, perflab.Ops(many),
		meta("000", "Threading"), fidelity(manyFidelity),
		perflab.Description("Five AfterFuncs alive at once, stopped in reverse order, 10 000 times"))
	perflab.Func("CancelEvent", func() bool {
		done := make(chan struct{})
		close(done)
		select {
		case <-done:
			return true
		default:
			return false
		}
	}, threading, extra("000 · Threading"), perflab.Description("The channel form: make a done channel, close it, observe it"))

	tokenDone := make(chan bool, 1)
	perflab.Func("WithCancellationToken", func() bool {
		go func() { // the pending WaitAsync(token) …
			select {
			case <-sem:
				tokenDone <- true
			case <-sourceCtx.Done():
				tokenDone <- false
			}
		}()
		sem <- struct{}{} // … completed by Release
		return <-tokenDone
	}, perflab.Categories("threading", "quick"), meta("000", "Threading"),
		// issue 39: the seed's WaitAsync is an allocation and a registration, pending when Release completes
		// it; here each call also starts a goroutine and waits for the scheduler to run it
		fidelity("partial: Go has no asynchronous wait; the pending WaitAsync is a goroutine started in each call, so the call also times its start and scheduling beside the hand-off"),
		perflab.Description("A pending waiter (select on the semaphore and a context's Done) on its own goroutine, then Release"))
	perflab.Func("WithTimeout", func() bool {
		sem <- struct{}{}
		t := time.NewTimer(time.Minute)
		defer t.Stop()
		select {
		case <-sem:
			return true
		case <-t.C:
			return false
		}
	}, threading, meta("000", "Threading"),
		fidelity("partial: release, then acquire in a select with a one-minute timer; the seed's WaitAsync(timeout) is pending when Release completes it"),
		perflab.Description("Release, then acquire in a select with a one-minute timer"))
	done := make(chan bool, 1)
	perflab.Func("WithTimeoutAsync", func() bool {
		go func() { // the pending WaitAsync(timeout) …
			t := time.NewTimer(time.Minute)
			defer t.Stop()
			select {
			case <-sem:
				done <- true
			case <-t.C:
				done <- false
			}
		}()
		sem <- struct{}{} // … completed by Release
		return <-done
	}, threading, extra("000 · Threading"),
		perflab.Description("The waiter (select on the semaphore and a one-minute timer) on its own goroutine, then Release"))

	perflab.Register(perflab.Benchmark{Name: "PingPong", Ops: roundTrips, Categories: []string{"threading", "quick"},
		Meta:        map[string]string{"seed": "003", "section": "Threading", "fidelity": "faithful"},
		Description: "Two goroutines, two buffered channels: 10 000 round trips per call",
		Setup:       setupPingPong, Teardown: teardownPingPong})

	perflab.Register(perflab.Benchmark{Name: "ParallelFor", Categories: []string{"threading"},
		Meta:        map[string]string{"extra": "true", "related": "001 · Parallel"},
		Description: "Sum of squares over [0, 1000) on GOMAXPROCS goroutines taking chunks of 64",
		Params:      countAxis, Setup: withCount(parallelFor)})
	perflab.Register(perflab.Benchmark{Name: "ParallelForEachAsync", Categories: []string{"threading"},
		Meta:        map[string]string{"extra": "true", "related": "000 · Threading"},
		Description: "A goroutine per element of 1000, joined with a WaitGroup",
		Params:      countAxis, Setup: withCount(parallelForEachAsync)})

	// The seed's Task.Yield queues the rest of the method to the thread pool and BenchmarkDotNet blocks
	// on the task until a pool thread has run it: here a goroutine is queued and waited for.
	// (runtime.Gosched() alone costs next to nothing when no other goroutine is runnable.)
	perflab.Func("YieldOnce", func() int {
		done := make(chan struct{})
		go func() { close(done) }()
		<-done
		return 0
	}, threading, meta("001", "Tasks"),
		perflab.Meta("fidelity", "partial: Go has no async methods; a goroutine started and awaited on a channel stands for the continuation Task.Yield queues to the pool"),
		perflab.Description("await Task.Yield() ↔ start a goroutine and wait for it on a channel"))
}
