"""Collections and LINQ experiments of seeds 000 (".NET 6": Collections and LINQ) and 003
(".NET Core 3.0": Collections, LINQ), ported to Python's built-ins, heapq and collections."""
import collections
import datetime
import heapq
import random

import perflab


def _meta(seed, section, fidelity=None):
    """Seed tags plus how faithful the port is (suites/seeds/README.md, "Fidelity"); no fidelity
    means not audited yet."""
    meta = {"seed": seed, "section": section}
    if fidelity:
        meta["fidelity"] = fidelity
    return meta


class Dictionary:
    """Dictionary<string,int>(100 entries) copy constructor ↔ dict(d)."""

    def setup(self):
        self.d = {str(i): i for i in range(100)}
        self.counts = {}

    @perflab.benchmark(name="Clone", categories=["collections", "quick"],
                       meta=_meta("000", "Collections and LINQ", "faithful"))
    def clone(self):
        return dict(self.d)

    @perflab.benchmark(name="AddNew", categories=["collections"],
                       meta=_meta("000", "Collections and LINQ",
                                  "partial: two hash lookups per update (Python has no ref-returning "
                                  "GetValueRefOrAddDefault)"))
    def add_new(self):
        """The seed's counting loop: keys 0..9999 incremented in one dictionary that lives as long as
        the case (the seed's `_counts` field), so after the first call every key exists."""
        counts = self.counts
        for i in range(10000):
            counts[i] = counts.get(i, 0) + 1


class Linq:
    def setup(self):
        self.strings = [str(i) for i in range(100000)]
        self.e1 = list(range(1000000))
        self.e2 = list(range(1000000))
        self.spans = [datetime.timedelta(milliseconds=i) for i in range(1000000)]

    @perflab.benchmark(name="DistinctCount", categories=["collections"],
                       meta=_meta("000", "Collections and LINQ", "faithful"))
    def distinct_count(self):
        """Distinct().Count() over 100 000 strings ↔ len(set(...))."""
        return len(set(self.strings))

    @perflab.benchmark(name="SequenceEqual", categories=["collections"],
                       meta=_meta("000", "Collections and LINQ", "faithful"))
    def sequence_equal(self):
        """Two equal 1 000 000-int sequences ↔ list ==."""
        return self.e1 == self.e2

    @perflab.benchmark(name="Max", categories=["collections"],
                       meta=_meta("000", "Collections and LINQ", "faithful"))
    def max_(self):
        return max(self.spans)

    @perflab.benchmark(name="Min", categories=["collections"],
                       meta=_meta("000", "Collections and LINQ", "faithful"))
    def min_(self):
        return min(self.spans)


_RANGE100 = range(100)


@perflab.benchmark(name="RangeSelectToArray", categories=["collections"], meta=_meta("003", "LINQ", "faithful"))
def range_select_to_array():
    return [i * 2 for i in _RANGE100]


_TAKELAST = list(range(1000))


@perflab.benchmark(name="SumLast10", categories=["collections"], meta=_meta(
    "003", "LINQ", "partial: sum of a list's last 10 (a slice copy), where the seed's TakeLast goes through a "
    "lazy Select (a map object cannot be indexed)"))
def sum_last_10():
    return sum(_TAKELAST[-10:])


class PriorityQueue:
    """PriorityQueue<TElement,TPriority> (new in .NET 6) ↔ heapq: enqueue n, then dequeue all."""

    params = {"n": [1000]}

    def setup(self):
        rnd = random.Random(42)
        self.items = [rnd.random() for _ in range(self.n)]

    @perflab.benchmark(name="EnqueueDequeue", categories=["collections"],
                       meta={"extra": True, "related": "000 · Collections and LINQ"})
    def enqueue_dequeue(self):
        h = []
        push, pop = heapq.heappush, heapq.heappop
        for x in self.items:
            push(h, x)
        while h:
            pop(h)


@perflab.benchmark(name="EnqueueCountDequeue", categories=["collections"],
                   meta=_meta("003", "Collections", "partial: collections.deque is not a concurrent queue "
                              "(Python's thread-safe queue.Queue would add a lock and a condition)"))
def enqueue_count_dequeue():
    """ConcurrentQueue Enqueue/Count/Dequeue ↔ collections.deque append/len/popleft."""
    q = _CQ
    q.append(42)
    n = len(q)
    q.popleft()
    return n


# The seed's GlobalSetup: a queue holding 100 items (made once, so no import or lookup is timed).
_CQ = collections.deque(range(100))
