import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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

    @Meta({"seed=000", "section=Threading"})
    public static class Starvation {
        @Param({"48"}) int items;
        @Param({"49"}) int workers;

        /**
         * One invocation = the seed's whole scenario: `items` work items that block until a final work item
         * opens a latch; time until all are done. A fixed pool never injects threads (neither does a
         * ForkJoinPool for plain blocking), so it is sized items + 1 as in the Python port; what is measured is
         * starting the pool's threads and releasing them.
         */
        @Benchmark(categories = {"threading", "quick"},
                description = "48 work items block on a latch opened by a 49th, on a fixed pool of 49 threads")
        public void ThreadPoolStarvation() throws Exception {
            CountDownLatch done = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(workers);
            try {
                List<Future<?>> futures = new ArrayList<>(items + 1);
                for (int i = 0; i < items; i++) futures.add(pool.submit(() -> { done.await(); return null; }));
                futures.add(pool.submit(done::countDown));
                for (Future<?> f : futures) f.get();
            } finally {
                pool.shutdown();
            }
            if (!pool.awaitTermination(60, TimeUnit.SECONDS)) throw new IllegalStateException("pool did not stop");
        }
    }

    // -- CancellationTokenSource (000 "Threading") ----------------------------------------------------
    // A CancellationTokenSource ↔ a CompletableFuture (what java.util.concurrent cancels). Java has no way
    // to unregister a callback from one, so the seed's Register/Dispose benchmarks are left out.

    @Meta({"seed=000", "section=Threading"})
    public static class Cancellation {
        @Benchmark(categories = {"threading", "quick"}, description = "new CompletableFuture, then cancel it")
        public boolean CreateTokenDispose() {
            CompletableFuture<Void> token = new CompletableFuture<>();
            return token.cancel(false);
        }

        @Benchmark(categories = {"threading"}, description = "The thread-world form: a CountDownLatch(1), signalled and observed")
        public boolean CancelEvent() {
            CountDownLatch ev = new CountDownLatch(1);
            ev.countDown();
            return ev.getCount() == 0;
        }
    }

    // -- SemaphoreSlim.Wait with a token / timeout (000 "Threading") ---------------------------------

    @Meta({"seed=000", "section=Threading"})
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
    @Meta({"seed=003", "section=Threading"})
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
        @Meta({"seed=001", "section=Parallel"})
        public long ParallelFor() {
            return IntStream.range(0, count).parallel().mapToLong(i -> (long) i * i).sum();
        }

        @Benchmark(categories = {"threading"}, description = "`count` CompletableFuture.supplyAsync tasks on the common ForkJoinPool, awaited with allOf")
        @Meta({"seed=000", "section=Threading"})
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
        @Meta({"seed=001", "section=ThreadStatic"})
        public int Increment() {
            return ++VALUE.get()[0];
        }

        @Benchmark(categories = {"threading"}, description = "await Task.Yield() ↔ hop to the common pool and back (runAsync + join)")
        @Meta({"seed=001", "section=Tasks"})
        public void YieldOnce() {
            CompletableFuture.runAsync(NOTHING, ForkJoinPool.commonPool()).join();
        }

        @Benchmark(categories = {"threading"}, description = "Thread.currentThread()")
        @Meta({"seed=003", "section=Threading"})
        public Thread CurrentThread() {
            return Thread.currentThread();
        }
    }
}
