//! Collections and LINQ experiments of seeds 000 (".NET 6": Collections and LINQ) and 003
//! (".NET Core 3.0": Collections, LINQ), ported to std::collections (HashMap, HashSet, BinaryHeap,
//! VecDeque), slices and iterators.
use perflab::{black_box, Bencher, Registry};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Mutex;
use std::time::Duration;

const S000: &str = "Collections and LINQ";

// -- Dictionary ---------------------------------------------------------------------------------

/// Dictionary<string,int>(100 entries) copy constructor ↔ `HashMap::clone`. The keys are shared
/// `Rc<str>` (as .NET's string references), so the clone copies the table, not the strings.
fn clone(b: &mut Bencher) {
    let d: HashMap<Rc<str>, i32> = (0..100).map(|i| (Rc::from(i.to_string()), i)).collect();
    b.iter(move || black_box(&d).clone());
}

/// Count occurrences: the seed's CollectionsMarshal-style update ↔ `entry().or_insert(0) += 1`.
fn add_new(b: &mut Bencher) {
    // The seed's `_counts` field: one map that lives as long as the case, so after the first call
    // every key 0..9999 exists; `entry` is the single lookup GetValueRefOrAddDefault does.
    let mut counts: HashMap<u32, u32> = HashMap::new();
    b.iter(move || {
        for i in 0..black_box(10_000u32) {
            *counts.entry(i).or_insert(0) += 1;
        }
        counts.len()
    });
}

// -- LINQ over big sequences --------------------------------------------------------------------

/// Distinct().Count() over 100 000 strings ↔ collecting into a `HashSet<&str>`.
fn distinct_count(b: &mut Bencher) {
    let strings: Vec<String> = (0..100_000).map(|i: i32| i.to_string()).collect();
    b.iter(move || black_box(&strings).iter().map(String::as_str).collect::<HashSet<&str>>().len());
}

/// Two equal 1 000 000-int sequences ↔ `Vec<i32> ==`.
fn sequence_equal(b: &mut Bencher) {
    let e1: Vec<i32> = (0..1_000_000).collect();
    let e2: Vec<i32> = (0..1_000_000).collect();
    b.iter(move || black_box(&e1) == black_box(&e2));
}

fn spans() -> Vec<Duration> {
    (0..1_000_000).map(Duration::from_millis).collect()
}

/// Max() of 1 000 000 TimeSpans ↔ `iter().max()` of `Duration`s.
fn max(b: &mut Bencher) {
    let s = spans();
    b.iter(move || black_box(&s).iter().max().copied());
}

fn min(b: &mut Bencher) {
    let s = spans();
    b.iter(move || black_box(&s).iter().min().copied());
}

// -- LINQ (003) ---------------------------------------------------------------------------------

/// Enumerable.Range(0, 100).Select(i => i * 2).ToArray() ↔ `map` + `collect`.
fn range_select_to_array() -> Vec<i32> {
    (0..black_box(100)).map(|i| i * 2).collect()
}

/// `new int[1000].Select(i => i)`, then TakeLast(10).Sum() ↔ a lazy `map` over the slice, whose last 10
/// are reached from the back (`rev().take(10)`, as .NET Core 3.0's TakeLast skips through the
/// Select's partition) and summed.
fn sum_last_10(b: &mut Bencher) {
    let v: Vec<i32> = (0..1000).collect();
    b.iter(move || black_box(&v).iter().map(|&i| i).rev().take(10).sum::<i32>());
}

// -- PriorityQueue (000) ------------------------------------------------------------------------

/// PriorityQueue<TElement,TPriority> (new in .NET 6) ↔ `BinaryHeap` as a min-heap
/// (`Reverse`): enqueue n pseudo-random priorities, then dequeue all.
fn enqueue_dequeue(b: &mut Bencher) {
    let n: usize = b.param_as("n");
    let mut x: u64 = 42;
    let items: Vec<u64> = (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect();
    b.iter(move || {
        let mut h = BinaryHeap::new();
        for &p in black_box(&items) {
            h.push(Reverse(p));
        }
        let mut last = 0;
        while let Some(Reverse(p)) = h.pop() {
            last = p;
        }
        last
    });
}

// -- ConcurrentQueue (003) ----------------------------------------------------------------------

/// ConcurrentQueue<int> (100 items queued in setup, as in the seed) Enqueue / Count / TryDequeue ↔
/// a `Mutex<VecDeque<i32>>`, locked for each of the three operations.
fn enqueue_count_dequeue(b: &mut Bencher) {
    let q = Mutex::new((0..100).collect::<VecDeque<i32>>());
    b.iter(move || {
        q.lock().unwrap().push_back(42);
        let n = q.lock().unwrap().len();
        let x = q.lock().unwrap().pop_front();
        (n, x)
    });
}

pub fn register(r: &mut Registry) {
    r.bench("Clone", clone)
        .group("Dictionary")
        .category("collections")
        .category("quick")
        .meta("seed", "000")
        .meta("section", S000)
        .meta("fidelity", "faithful");
    r.bench("AddNew", add_new)
        .group("Dictionary")
        .category("collections")
        .meta("seed", "000")
        .meta("section", S000)
        .meta("fidelity", "faithful");
    for (name, setup) in [
        ("DistinctCount", distinct_count as fn(&mut Bencher)),
        ("SequenceEqual", sequence_equal),
        ("Max", max),
        ("Min", min),
    ] {
        r.bench(name, setup)
            .group("Linq")
            .category("collections")
            .meta("seed", "000")
            .meta("section", S000)
            .meta("fidelity", "faithful");
    }
    r.func("RangeSelectToArray", range_select_to_array)
        .category("collections")
        .meta("seed", "003")
        .meta("section", "LINQ")
        .meta("fidelity", "faithful");
    r.bench("SumLast10", sum_last_10).category("collections").meta("seed", "003").meta("section", "LINQ").meta("fidelity", "faithful");
    r.bench("EnqueueDequeue", enqueue_dequeue)
        .param("n", &[1000])
        .group("PriorityQueue")
        .category("collections")
        .meta("extra", true) // not a method of the seed
        .meta("related", format!("000 · {S000}"));
    r.bench("EnqueueCountDequeue", enqueue_count_dequeue)
        .category("collections")
        .meta("seed", "003")
        .meta("section", "Collections")
        .meta("fidelity", "partial: std has no concurrent queue; a Mutex<VecDeque> holding 100, locked for each of the three operations");
}
