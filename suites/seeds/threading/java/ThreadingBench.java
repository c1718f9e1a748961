import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import perflab.Benchmark;
import perflab.Meta;
import perflab.OperationsPerInvocation;
import perflab.Param;
import perflab.Setup;
import perflab.TearDown;

/**
 * Threading experiments of seeds 000 (".NET 6": Threading), 001 (threading sections of .NET 6/7/8) and
 * 003 (".NET Core 3.0": Threading), ported to java.util.concurrent. Names follow the seeds' methods.
 */
public class ThreadingBench {

    // -- Thread-pool starvation (000 "Threading", a console app with a stopwatch) -------------------

    // different (issue 39): the call builds and shuts down a pool, and a ForkJoinPool compensates a
    // blocked join with a new thread at once on JDK 17 and 25 alike, so the thread injection .NET 6
    // sped up has no counterpart to compare
    @Meta({"seed=000", "section=Threading", "scenario=true",
           "fidelity=different: a ForkJoinPool adds a compensating thread at once on every JDK, and the call builds and shuts down its own pool; the seed timed .NET's pool injecting threads"})
    public static class Starvation {
        @Param({"48"}) int items;

        /**
         * One invocation = the seed's whole scenario: `items` work items queued to a pool of as many threads as
         * the machine has cores (.NET's pool starts with that many) block until a final work item completes a
         * future (the seed's TaskCompletionSource); time until all are done. A ForkJoinPool meets a worker
         * blocked in CompletableFuture.join (a ManagedBlocker) by adding a compensating thread, as .NET's pool
         * injects threads when it sees starvation: how fast it does so is what the seed measured.
         */
        @Benchmark(categories = {"threading", "quick"},
                description = "48 work items on a ForkJoinPool of `cores` threads block on a future that a 49th completes")
        public void ThreadPoolStarvation() throws Exception {
            CompletableFuture<Void> tcs = new CompletableFuture<>();
            ForkJoinPool pool = new ForkJoinPool(Runtime.getRuntime().availableProcessors());
            try {
                List<Future<?>> tasks = new ArrayList<>(items + 1);
                for (int i = 0; i < items; i++) tasks.add(pool.submit(() -> { tcs.join(); }));
                tasks.add(pool.submit(() -> { tcs.complete(null); }));
                for (Future<?> t : tasks) t.get();      // Task.WaitAll
            } finally {
                pool.shutdown();
            }
            if (!pool.awaitTermination(60, TimeUnit.SECONDS)) throw new IllegalStateException("pool did not stop");
        }
    }

    // -- CancellationTokenSource (000 "Threading") ----------------------------------------------------
    // A CancellationTokenSource ↔ a CompletableFuture (what java.util.concurrent cancels). Java has no way
    // to unregister a callback from one, so the seed's Register/Dispose benchmarks are left out.

    public static class Cancellation {
        @Benchmark(categories = {"threading", "quick"}, description = "new CompletableFuture, then cancel it")
        @Meta({"seed=000", "section=Threading",
               "fidelity=partial: no CancellationTokenSource in the JDK; a CompletableFuture created and cancelled stands for it"})
        public boolean CreateTokenDispose() {
            CompletableFuture<Void> token = new CompletableFuture<>();
            return token.cancel(false);
        }

        @Benchmark(categories = {"threading"}, description = "Not a seed method: a CountDownLatch(1), signalled and observed")
        @Meta({"extra=true", "related=000 · Threading"})
        public boolean CancelEvent() {
            CountDownLatch ev = new CountDownLatch(1);
            ev.countDown();
            return ev.getCount() == 0;
        }
    }

    // -- SemaphoreSlim.Wait with a token / timeout (000 "Threading") ---------------------------------

    @Meta({"seed=000", "section=Threading",
           "fidelity=different: a blocking Semaphore released before the acquire (the seed's WaitAsync is pending when Release completes it)"})
    public static class Semaphores {
        Semaphore sem;

        @Setup public void setup() { sem = new Semaphore(0); }

        /** A Java thread's cancellation token is its interrupt: acquire() is the interruptible wait. */
        @Benchmark(categories = {"threading", "quick"}, description = "release, then the interruptible acquire()")
        public void WithCancellationToken() throws InterruptedException {
            sem.release();
            sem.acquire();
        }

        @Benchmark(categories = {"threading"}, description = "release, then tryAcquire with a one-minute timeout")
        public boolean WithTimeout() throws InterruptedException {
            sem.release();
            return sem.tryAcquire(60, TimeUnit.SECONDS);
        }
    }

    // -- Channels PingPong (003 "Threading") -------------------------------------------------------

    /** Two threads and two unbounded LinkedBlockingQueues (the seed's two unbounded channels). */
    @Meta({"seed=003", "section=Threading", "fidelity=faithful"})
    public static class Channels {
        static final Integer STOP = Integer.MIN_VALUE;
        BlockingQueue<Integer> toEcho, back;
        Thread echo;

        @Setup public void setup() {
            toEcho = new LinkedBlockingQueue<>();
            back = new LinkedBlockingQueue<>();
            echo = new Thread(() -> {
                try {
                    while (true) {
                        Integer item = toEcho.take();
                        if (item.equals(STOP)) return;
                        back.put(item);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "perflab-echo");
            echo.setDaemon(true);
            echo.start();
        }

        @TearDown public void teardown() throws InterruptedException {
            toEcho.put(STOP);
            echo.join(5000);
        }

        @Benchmark(categories = {"threading", "quick"}, description = "10 000 round trips through two queues and an echo thread")
        @OperationsPerInvocation(10000)
        public int PingPong() throws InterruptedException {
            int sum = 0;
            for (int i = 0; i < 10000; i++) {
                toEcho.put(i);
                sum += back.take();
            }
            return sum;
        }
    }

    // -- Parallel (001 "Parallel", 000) ---------------------------------------------------------------
// The common ForkJoinPool is named explicitly: CompletableFuture's default executor is a new thread per task
// when the common pool's parallelism is 1 (a 2-core machine), which would be another workload.

    public static class Parallel {
        @Param({"1000"}) int count;

        @Benchmark(categories = {"threading"}, description = "Parallel.For ↔ a parallel IntStream over range(count) (the common ForkJoinPool)")
        @Meta({"extra=true", "related=001 · Parallel"})
        public long ParallelFor() {
            return IntStream.range(0, count).parallel().mapToLong(i -> (long) i * i).sum();
        }

        @Benchmark(categories = {"threading"}, description = "`count` CompletableFuture.supplyAsync tasks on the common ForkJoinPool, awaited with allOf")
        @Meta({"extra=true", "related=000 · Threading"})
        public long ParallelForEachAsync() {
            @SuppressWarnings("unchecked")
            CompletableFuture<Long>[] fs = new CompletableFuture[count];
            for (int i = 0; i < count; i++) {
                final long v = i;
                fs[i] = CompletableFuture.supplyAsync(() -> v * v, ForkJoinPool.commonPool());
            }
            CompletableFuture.allOf(fs).join();
            long sum = 0;
            for (CompletableFuture<Long> f : fs) sum += f.join();
            return sum;
        }
    }

    // -- ThreadStatic (001), Tasks (001), Thread.CurrentThread (003) ---------------------------------

    public static class Misc {
        static final ThreadLocal<int[]> VALUE = ThreadLocal.withInitial(() -> new int[1]);
        static final Runnable NOTHING = () -> { };

        @Benchmark(categories = {"threading"}, description = "++t_value on a [ThreadStatic] field ↔ a ThreadLocal holder")
        @Meta({"seed=001", "section=ThreadStatic", "fidelity=faithful"})
        public int Increment() {
            return ++VALUE.get()[0];
        }

        @Benchmark(categories = {"threading"}, description = "await Task.Yield() ↔ hop to the common pool and back (runAsync + join)")
        @Meta({"seed=001", "section=Tasks", "fidelity=faithful"})
        public void YieldOnce() {
            CompletableFuture.runAsync(NOTHING, ForkJoinPool.commonPool()).join();
        }

        @Benchmark(categories = {"threading"}, description = "Thread.currentThread()")
        @Meta({"seed=003", "section=Threading", "fidelity=faithful"})
        public Thread CurrentThread() {
            return Thread.currentThread();
        }
    }
}
