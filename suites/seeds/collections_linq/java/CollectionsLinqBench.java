import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.IntStream;

import perflab.Benchmark;
import perflab.Meta;
import perflab.Param;
import perflab.Setup;

/**
 * Collections and LINQ experiments of seeds 000 (".NET 6": Collections and LINQ) and 003 (".NET Core 3.0":
 * Collections, LINQ), ported to java.util and java.util.stream (LINQ ↔ streams).
 */
public class CollectionsLinqBench {

    /** Dictionary&lt;string,int&gt;(100 entries) ↔ HashMap&lt;String,Integer&gt;. */
    @Meta({"seed=000", "section=Collections and LINQ"})
    public static class Dictionary {
        Map<String, Integer> d;
        Map<Integer, Integer> counts;   // the seed's `_counts` field: lives as long as the case

        @Setup public void setup() {
            d = new HashMap<>();
            for (int i = 0; i < 100; i++) d.put(Integer.toString(i), i);
            counts = new HashMap<>();
        }

        @Benchmark(categories = {"collections", "quick"}, description = "The copy constructor: new HashMap<>(d) of 100 string keys")
        @Meta("fidelity=faithful")
        public Map<String, Integer> Clone() {
            return new HashMap<>(d);
        }

        @Benchmark(categories = {"collections"},
                description = "counts[i]++ for keys 0..9999 with one lookup each (Map.merge ↔ GetValueRefOrAddDefault)")
        @Meta("fidelity=partial: Map.merge is one lookup, but boxes every count (Integer), where .NET increments in place")
        public Map<Integer, Integer> AddNew() {
            for (int i = 0; i < 10_000; i++) counts.merge(i, 1, Integer::sum);
            return counts;
        }
    }

    @Meta({"seed=000", "section=Collections and LINQ", "fidelity=faithful"})
    public static class Linq {
        List<String> strings;
        int[] e1, e2;
        List<Duration> spans;

        @Setup public void setup() {
            strings = new ArrayList<>(100000);
            for (int i = 0; i < 100000; i++) strings.add(Integer.toString(i));
            e1 = IntStream.range(0, 1000000).toArray();
            e2 = IntStream.range(0, 1000000).toArray();
            spans = new ArrayList<>(1000000);
            for (int i = 0; i < 1000000; i++) spans.add(Duration.ofMillis(i));
        }

        @Benchmark(categories = {"collections"}, description = "Distinct().Count() over 100 000 strings ↔ stream().distinct().count()")
        public long DistinctCount() {
            return strings.stream().distinct().count();
        }

        @Benchmark(categories = {"collections"}, description = "Two equal 1 000 000-int arrays ↔ Arrays.equals")
        public boolean SequenceEqual() {
            return Arrays.equals(e1, e2);
        }

        @Benchmark(categories = {"collections"}, description = "Max of 1 000 000 TimeSpans ↔ Collections.max of Durations")
        public Duration Max() {
            return Collections.max(spans);
        }

        @Benchmark(categories = {"collections"}, description = "Min of 1 000 000 TimeSpans ↔ Collections.min of Durations")
        public Duration Min() {
            return Collections.min(spans);
        }
    }

    @Meta({"seed=003", "section=LINQ"})
    public static class Linq003 {
        int count = 100;
        List<Integer> takeLast;

        @Setup public void setup() {
            takeLast = new ArrayList<>(1000);
            for (int i = 0; i < 1000; i++) takeLast.add(i);
        }

        @Benchmark(categories = {"collections"}, description = "Enumerable.Range(0, 100).Select(i => i * 2).ToArray() ↔ IntStream")
        @Meta("fidelity=faithful")
        public int[] RangeSelectToArray() {
            return IntStream.range(0, count).map(i -> i * 2).toArray();
        }

        @Benchmark(categories = {"collections"}, description = "TakeLast(10).Sum() of 1000 ints ↔ subList + stream sum")
        @Meta("fidelity=partial: streams have no takeLast; a stream over a list's last 10 (subList), where the seed's TakeLast goes through a lazy Select")
        public int SumLast10() {
            return takeLast.subList(takeLast.size() - 10, takeLast.size()).stream().mapToInt(Integer::intValue).sum();
        }
    }

    /** PriorityQueue&lt;TElement,TPriority&gt; (new in .NET 6) ↔ java.util.PriorityQueue: enqueue n, then dequeue all. */
    @Meta({"extra=true", "related=000 · Collections and LINQ"})   // not a method of the seed
    public static class PriorityQueues {
        @Param({"1000"}) int n;
        double[] items;

        @Setup public void setup() {
            Random rnd = new Random(42);
            items = new double[n];
            for (int i = 0; i < n; i++) items[i] = rnd.nextDouble();
        }

        @Benchmark(categories = {"collections"}, description = "n offers, then poll until empty")
        public double EnqueueDequeue() {
            PriorityQueue<Double> q = new PriorityQueue<>();
            for (double x : items) q.offer(x);
            double last = 0;
            while (!q.isEmpty()) last = q.poll();
            return last;
        }
    }

    /** ConcurrentQueue Enqueue/Count/Dequeue ↔ ConcurrentLinkedQueue offer/size/poll. */
    @Meta({"seed=003", "section=Collections"})
    public static class ConcurrentQueues {
        final ConcurrentLinkedQueue<Integer> q = new ConcurrentLinkedQueue<>();
        final Integer fortyTwo = 42;

        @Setup public void setup() {
            for (int i = 0; i < 100; i++) q.offer(i);   // the seed's GlobalSetup: 100 items queued
        }

        @Benchmark(categories = {"collections"}, description = "offer, size (O(n) in Java: it walks the 101 nodes), poll")
        @Meta("fidelity=faithful")
        public int EnqueueCountDequeue() {
            q.offer(fortyTwo);
            int n = q.size();
            q.poll();
            return n;
        }
    }
}
