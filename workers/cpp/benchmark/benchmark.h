// benchmark/benchmark.h — perflab's stand-in for Google Benchmark's header.
//
// perflab puts workers/cpp on the compiler's include path, so a file written for Google Benchmark
// (`#include <benchmark/benchmark.h>` or "benchmark/benchmark.h") compiles unchanged against this
// header instead of libbenchmark: its BENCHMARK(...) registrations become perflab benchmarks (one per
// registered function and argument set, the arguments as parameters) and perflab's worker runs them.
//
// What a timed iteration is: one call of the benchmark function with `state.max_iterations` set to
// the invocations the host asked for; the wall and CPU clocks run exactly where Google Benchmark's
// timer runs (from the loop's start to its end, stopped by PauseTiming and started by ResumeTiming),
// and code before and after the loop is not timed. The overhead stage runs `for (auto _ : state) {}`
// the same way. An API perflab cannot honour (Threads(n > 1), UseManualTime...) fails that
// benchmark alone with one line naming the API and its file:line. See
// docs/coming-from-google-benchmark.md.
#ifndef BENCHMARK_BENCHMARK_H_
#define BENCHMARK_BENCHMARK_H_

#include "../perflab.hpp"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#define BENCHMARK_ALWAYS_INLINE __attribute__((always_inline))
#define BENCHMARK_NOEXCEPT noexcept
#define BENCHMARK_NOEXCEPT_OP(x) noexcept(x)
#define BENCHMARK_UNUSED __attribute__((unused))
#define BENCHMARK_NOINLINE __attribute__((noinline))
#define BENCHMARK_BUILTIN_EXPECT(x, y) __builtin_expect(x, y)
#define BENCHMARK_DEPRECATED_MSG(msg)
#define BENCHMARK_WARNING_MSG(msg)
#define BENCHMARK_OVERRIDE override
#define BENCHMARK_EXPORT
#define BENCHMARK_HAS_CXX11
#define BENCHMARK_UNREACHABLE() __builtin_unreachable()
#define BENCHMARK_DISALLOW_COPY_AND_ASSIGN(TypeName) \
    TypeName(const TypeName&) = delete;              \
    TypeName& operator=(const TypeName&) = delete
#define BENCHMARK_DISABLE_DEPRECATED_WARNING
#define BENCHMARK_RESTORE_DEPRECATED_WARNING

namespace benchmark {

using IterationCount = int64_t;
using ComplexityN = int64_t;
enum TimeUnit { kNanosecond, kMicrosecond, kMillisecond, kSecond };
enum BigO { oNone, o1, oN, oNSquared, oNCubed, oLogN, oNLogN, oAuto, oLambda };
typedef double(BigOFunc)(ComplexityN);
typedef double(StatisticsFunc)(const std::vector<double>&);
enum StatisticUnit { kTime, kPercentage };
enum AggregationReportMode { ARM_Unspecified = 0 };

class State;
class Benchmark;

namespace internal {
using Benchmark = ::benchmark::Benchmark;  // Google Benchmark before 1.9 named it internal::Benchmark
typedef void(Function)(State&);
enum Skipped { NotSkipped = 0, SkippedWithMessage, SkippedWithError };
}  // namespace internal

// ---- counters -------------------------------------------------------------------------------------
class Counter {
   public:
    enum Flags {
        kDefaults = 0,
        kIsRate = 1 << 0,
        kAvgThreads = 1 << 1,
        kAvgThreadsRate = kIsRate | kAvgThreads,
        kIsIterationInvariant = 1 << 2,
        kIsIterationInvariantRate = kIsRate | kIsIterationInvariant,
        kAvgIterations = 1 << 3,
        kAvgIterationsRate = kIsRate | kAvgIterations,
        kInvert = 1 << 31
    };
    enum OneK { kIs1000 = 1000, kIs1024 = 1024 };
    double value;
    Flags flags;
    OneK oneK;
    BENCHMARK_ALWAYS_INLINE Counter(double v = 0., Flags f = kDefaults, OneK k = kIs1000) : value(v), flags(f), oneK(k) {}
    BENCHMARK_ALWAYS_INLINE operator double const&() const { return value; }
    BENCHMARK_ALWAYS_INLINE operator double&() { return value; }
};
inline Counter::Flags operator|(const Counter::Flags& a, const Counter::Flags& b) {
    return static_cast<Counter::Flags>(static_cast<int>(a) | static_cast<int>(b));
}
using UserCounters = std::map<std::string, Counter>;

// ---- sinks: the same asm constraints as Google Benchmark's, so the optimiser sees the same code ---
inline BENCHMARK_ALWAYS_INLINE void ClobberMemory() { std::atomic_signal_fence(std::memory_order_acq_rel); }

#if defined(__clang__)
template <class Tp>
inline BENCHMARK_ALWAYS_INLINE void DoNotOptimize(Tp const& value) {
    asm volatile("" : : "r,m"(value) : "memory");
}
template <class Tp>
inline BENCHMARK_ALWAYS_INLINE void DoNotOptimize(Tp& value) {
    asm volatile("" : "+r,m"(value) : : "memory");
}
template <class Tp>
inline BENCHMARK_ALWAYS_INLINE void DoNotOptimize(Tp&& value) {
    asm volatile("" : "+r,m"(value) : : "memory");
}
#else
template <class Tp>
inline BENCHMARK_ALWAYS_INLINE typename std::enable_if<std::is_trivially_copyable<Tp>::value && (sizeof(Tp) <= sizeof(Tp*))>::type
DoNotOptimize(Tp const& value) {
    asm volatile("" : : "r,m"(value) : "memory");
}
template <class Tp>
inline BENCHMARK_ALWAYS_INLINE typename std::enable_if<!std::is_trivially_copyable<Tp>::value || (sizeof(Tp) > sizeof(Tp*))>::type
DoNotOptimize(Tp const& value) {
    asm volatile("" : : "m"(value) : "memory");
}
template <class Tp>
inline BENCHMARK_ALWAYS_INLINE typename std::enable_if<std::is_trivially_copyable<Tp>::value && (sizeof(Tp) <= sizeof(Tp*))>::type
DoNotOptimize(Tp& value) {
    asm volatile("" : "+m,r"(value) : : "memory");
}
template <class Tp>
inline BENCHMARK_ALWAYS_INLINE typename std::enable_if<!std::is_trivially_copyable<Tp>::value || (sizeof(Tp) > sizeof(Tp*))>::type
DoNotOptimize(Tp& value) {
    asm volatile("" : "+m"(value) : : "memory");
}
template <class Tp>
inline BENCHMARK_ALWAYS_INLINE typename std::enable_if<std::is_trivially_copyable<Tp>::value && (sizeof(Tp) <= sizeof(Tp*))>::type
DoNotOptimize(Tp&& value) {
    asm volatile("" : "+m,r"(value) : : "memory");
}
template <class Tp>
inline BENCHMARK_ALWAYS_INLINE typename std::enable_if<!std::is_trivially_copyable<Tp>::value || (sizeof(Tp) > sizeof(Tp*))>::type
DoNotOptimize(Tp&& value) {
    asm volatile("" : "+m"(value) : : "memory");
}
#endif

namespace internal {
// The benchmark cannot run as written under perflab: its case fails with this one line.
inline std::string at(const char* file, int line) { return std::string(file ? file : "?") + ":" + std::to_string(line); }
[[noreturn]] inline void fail(const std::string& message, const char* file = nullptr, int line = 0) {
    throw ::perflab::Failure(message, file ? file : "", line);
}
// The clocks perflab's worker reads (protocol v2): wall = steady_clock, CPU = this thread's CPU time.
#ifdef PERFLAB_GBENCH_TEST_CLOCKS  // workers/cpp/tests/test_gbench.cpp: deterministic clocks
uint64_t perflab_test_wall_ns();
uint64_t perflab_test_cpu_ns();
inline uint64_t wall_ns() { return perflab_test_wall_ns(); }
inline uint64_t cpu_ns() { return perflab_test_cpu_ns(); }
#else
inline uint64_t wall_ns() {
    return (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
inline uint64_t cpu_ns() {
    timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}
#endif
class Instance;
}  // namespace internal

// ---- State ----------------------------------------------------------------------------------------
class State {
   public:
    struct StateIterator;
    friend struct StateIterator;
    inline BENCHMARK_ALWAYS_INLINE StateIterator begin();
    inline BENCHMARK_ALWAYS_INLINE StateIterator end();

    inline bool KeepRunning() { return KeepRunningInternal(1, false); }
    inline bool KeepRunningBatch(IterationCount n) { return KeepRunningInternal(n, true); }

    // Stops both clocks, in Google Benchmark's order (its ThreadTimer): wall, then this thread's CPU.
    void PauseTiming() {
        if (!running_) internal::fail("PauseTiming() called while the timer is not running", file_, line_);
        wall_used_ += internal::wall_ns() - wall_start_;
        cpu_used_ += internal::cpu_ns() - cpu_start_;
        running_ = false;
    }
    // Starts both clocks, in Google Benchmark's order: wall, then CPU. So the wall time of every timed
    // stretch includes one CPU-clock read, as Google Benchmark's does, and the CPU time never exceeds
    // the wall time by the cost of the reads (a loop that pauses thousands of times would otherwise
    // report more CPU than wall time).
    void ResumeTiming() {
        if (running_) internal::fail("ResumeTiming() called while the timer is running", file_, line_);
        running_ = true;
        wall_start_ = internal::wall_ns();
        cpu_start_ = internal::cpu_ns();
    }
    void SkipWithMessage(const std::string& msg) {
        skipped_ = internal::SkippedWithMessage;
        skip_message_ = msg;
        total_iterations_ = 0;
        if (running_) PauseTiming();
    }
    void SkipWithError(const std::string& msg) {
        skipped_ = internal::SkippedWithError;
        skip_message_ = msg;
        total_iterations_ = 0;
        if (running_) PauseTiming();
    }
    void SkipWithError(const char* msg) { SkipWithError(std::string(msg ? msg : "")); }
    bool skipped() const { return skipped_ != internal::NotSkipped; }
    bool error_occurred() const { return skipped_ == internal::SkippedWithError; }

    // perflab measures the time itself: a benchmark registered with UseManualTime() fails before it
    // runs, so this is only reached without it, where Google Benchmark ignores the value too.
    void SetIterationTime(double) {}

    void SetBytesProcessed(int64_t bytes) { counters["bytes_per_second"] = Counter(double(bytes), Counter::kIsRate, Counter::kIs1024); }
    int64_t bytes_processed() const {
        auto it = counters.find("bytes_per_second");
        return it == counters.end() ? 0 : int64_t(it->second.value);
    }
    void SetItemsProcessed(int64_t items) { counters["items_per_second"] = Counter(double(items), Counter::kIsRate); }
    int64_t items_processed() const {
        auto it = counters.find("items_per_second");
        return it == counters.end() ? 0 : int64_t(it->second.value);
    }
    void SetComplexityN(ComplexityN n) { complexity_n_ = n; }
    ComplexityN complexity_length_n() const { return complexity_n_; }
    void SetLabel(const std::string& label) { label_ = label; }
    void SetLabel(const char* label) { label_ = label ? label : ""; }

    int64_t range(std::size_t pos = 0) const {
        if (pos >= range_.size())
            internal::fail("state.range(" + std::to_string(pos) + ") but the benchmark has " + std::to_string(range_.size()) +
                               " argument(s)", file_, line_);
        return range_[pos];
    }
    int64_t range_x() const { return range(0); }
    int64_t range_y() const { return range(1); }
    size_t range_size() const { return range_.size(); }
    int threads() const { return 1; }
    int thread_index() const { return 0; }
    IterationCount iterations() const {
        if (!started_) return 0;
        return max_iterations - total_iterations_ + batch_leftover_;
    }
    std::string name() const { return name_; }

    UserCounters counters;
    const IterationCount max_iterations;

    // perflab's own: made by the worker for each timed call
    State(std::string name, IterationCount max_iters, std::vector<int64_t> ranges, const char* file, int line)
        : max_iterations(max_iters), range_(std::move(ranges)), name_(std::move(name)), file_(file), line_(line) {}

   private:
    friend class internal::Instance;
    IterationCount total_iterations_ = 0;
    IterationCount batch_leftover_ = 0;
    bool started_ = false;
    bool finished_ = false;
    internal::Skipped skipped_ = internal::NotSkipped;
    std::vector<int64_t> range_;
    ComplexityN complexity_n_ = 0;
    std::string name_, label_, skip_message_;
    const char* file_;
    int line_;
    bool running_ = false;
    uint64_t wall_start_ = 0, cpu_start_ = 0, wall_used_ = 0, cpu_used_ = 0;

    void StartKeepRunning() {
        if (started_) internal::fail("the benchmark loop was entered twice in one call", file_, line_);
        started_ = true;
        total_iterations_ = skipped() ? 0 : max_iterations;
        if (!skipped()) ResumeTiming();
    }
    void FinishKeepRunning() {
        if (!skipped()) PauseTiming();
        total_iterations_ = 0;
        finished_ = true;
    }
    inline bool KeepRunningInternal(IterationCount n, bool is_batch) {
        if (BENCHMARK_BUILTIN_EXPECT(total_iterations_ >= n, true)) {
            total_iterations_ -= n;
            return true;
        }
        if (!started_) {
            StartKeepRunning();
            if (!skipped() && total_iterations_ >= n) {
                total_iterations_ -= n;
                return true;
            }
        }
        if (is_batch && total_iterations_ != 0) {
            batch_leftover_ = n - total_iterations_;
            total_iterations_ = 0;
            return true;
        }
        FinishKeepRunning();
        return false;
    }
};

struct State::StateIterator {
    struct BENCHMARK_UNUSED Value {};
    typedef std::forward_iterator_tag iterator_category;
    typedef Value value_type;
    typedef Value reference;
    typedef Value pointer;
    typedef std::ptrdiff_t difference_type;

    BENCHMARK_ALWAYS_INLINE StateIterator() : cached_(0), parent_() {}
    BENCHMARK_ALWAYS_INLINE explicit StateIterator(State* st) : cached_(st->skipped() ? 0 : st->max_iterations), parent_(st) {}
    BENCHMARK_ALWAYS_INLINE Value operator*() const { return Value(); }
    BENCHMARK_ALWAYS_INLINE StateIterator& operator++() {
        --cached_;
        return *this;
    }
    BENCHMARK_ALWAYS_INLINE bool operator!=(StateIterator const&) const {
        if (BENCHMARK_BUILTIN_EXPECT(cached_ != 0, true)) return true;
        parent_->FinishKeepRunning();
        return false;
    }

   private:
    IterationCount cached_;
    State* const parent_;
};
inline BENCHMARK_ALWAYS_INLINE State::StateIterator State::begin() { return StateIterator(this); }
inline BENCHMARK_ALWAYS_INLINE State::StateIterator State::end() {
    StartKeepRunning();
    return StateIterator();
}

class ScopedPauseTiming {
   public:
    explicit ScopedPauseTiming(State& state) : state_(state) { state_.PauseTiming(); }
    ~ScopedPauseTiming() { state_.ResumeTiming(); }
    ScopedPauseTiming(const ScopedPauseTiming&) = delete;
    void operator=(const ScopedPauseTiming&) = delete;

   private:
    State& state_;
};

// ---- registration ---------------------------------------------------------------------------------
class Benchmark {
   public:
    typedef void(callback_function)(const State&);
    virtual ~Benchmark() {}

    Benchmark* Name(const std::string& name) {
        name_ = name;
        return this;
    }
    Benchmark* Arg(int64_t x) {
        args_.push_back({x});
        return this;
    }
    Benchmark* Unit(TimeUnit) { return this; }  // perflab picks the unit of its table
    Benchmark* Range(int64_t start, int64_t limit) {
        std::vector<int64_t> v;
        AddRange(&v, start, limit, multiplier_);
        for (int64_t x : v) args_.push_back({x});
        return this;
    }
    Benchmark* DenseRange(int64_t start, int64_t limit, int step = 1) {
        for (int64_t x = start; x <= limit; x += step) args_.push_back({x});
        return this;
    }
    Benchmark* Args(const std::vector<int64_t>& args) {
        args_.push_back(args);
        return this;
    }
    Benchmark* ArgPair(int64_t x, int64_t y) { return Args({x, y}); }
    Benchmark* Ranges(const std::vector<std::pair<int64_t, int64_t>>& ranges) {
        std::vector<std::vector<int64_t>> lists;
        for (auto& r : ranges) {
            std::vector<int64_t> v;
            AddRange(&v, r.first, r.second, multiplier_);
            lists.push_back(v);
        }
        return ArgsProduct(lists);
    }
    Benchmark* ArgsProduct(const std::vector<std::vector<int64_t>>& lists) {
        std::vector<size_t> idx(lists.size(), 0);
        for (auto& l : lists)
            if (l.empty()) return this;
        while (true) {
            std::vector<int64_t> args;
            for (size_t i = 0; i < lists.size(); ++i) args.push_back(lists[i][idx[i]]);
            args_.push_back(args);
            size_t i = lists.size();
            while (i > 0) {  // the last list varies fastest, as in Google Benchmark
                --i;
                if (++idx[i] < lists[i].size()) break;
                idx[i] = 0;
                if (i == 0) return this;
            }
            if (lists.empty()) return this;
        }
    }
    Benchmark* ArgName(const std::string& name) {
        arg_names_ = {name};
        return this;
    }
    Benchmark* ArgNames(const std::vector<std::string>& names) {
        arg_names_ = names;
        return this;
    }
    Benchmark* RangePair(int64_t lo1, int64_t hi1, int64_t lo2, int64_t hi2) { return Ranges({{lo1, hi1}, {lo2, hi2}}); }
    Benchmark* Setup(void (*fn)(const State&)) {
        setup_ = fn;
        return this;
    }
    Benchmark* Setup(const std::function<void(const State&)>& fn) {
        setup_ = fn;
        return this;
    }
    Benchmark* Teardown(void (*fn)(const State&)) {
        teardown_ = fn;
        return this;
    }
    Benchmark* Teardown(const std::function<void(const State&)>& fn) {
        teardown_ = fn;
        return this;
    }
    Benchmark* Apply(void (*fn)(Benchmark*)) {
        fn(this);
        return this;
    }
    Benchmark* Apply(const std::function<void(Benchmark*)>& fn) {
        fn(this);
        return this;
    }
    Benchmark* RangeMultiplier(int multiplier) {
        multiplier_ = multiplier < 2 ? 2 : multiplier;
        return this;
    }
    // How long Google Benchmark runs, and how often: perflab's job decides (--job), so these are noted only.
    Benchmark* MinTime(double) { return this; }
    Benchmark* MinWarmUpTime(double) { return this; }
    Benchmark* Repetitions(int) { return this; }
    Benchmark* ReportAggregatesOnly(bool = true) { return this; }
    Benchmark* DisplayAggregatesOnly(bool = true) { return this; }
    Benchmark* ComputeStatistics(const std::string&, StatisticsFunc*, StatisticUnit = kTime) { return this; }
    Benchmark* Complexity(BigO = oAuto) { return this; }
    Benchmark* Complexity(BigOFunc*) { return this; }
    // perflab's mean is the wall time whichever clock Google Benchmark would report; CPU time is read
    // per iteration too (this thread's), so both flags keep their meaning for the measurement.
    Benchmark* UseRealTime() { return this; }
    Benchmark* MeasureProcessCPUTime() { return this; }
    // A fixed iteration count: one timed call of exactly n loop iterations per perflab iteration.
    Benchmark* Iterations(IterationCount n) {
        iterations_ = n < 1 ? 1 : n;
        return this;
    }
    Benchmark* UseManualTime(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        return Unsupported("UseManualTime()", "perflab times the loop itself; SetIterationTime is not measured", file, line);
    }
    Benchmark* Threads(int t, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        if (t > 1) Unsupported("Threads(" + std::to_string(t) + ")", "perflab runs a benchmark on one thread", file, line);
        return this;
    }
    Benchmark* ThreadRange(int min_threads, int max_threads, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        if (max_threads > 1)
            Unsupported("ThreadRange(" + std::to_string(min_threads) + ", " + std::to_string(max_threads) + ")",
                        "perflab runs a benchmark on one thread", file, line);
        return this;
    }
    Benchmark* DenseThreadRange(int min_threads, int max_threads, int = 1, const char* file = __builtin_FILE(),
                                int line = __builtin_LINE()) {
        if (max_threads > 1)
            Unsupported("DenseThreadRange(" + std::to_string(min_threads) + ", " + std::to_string(max_threads) + ")",
                        "perflab runs a benchmark on one thread", file, line);
        return this;
    }
    Benchmark* ThreadPerCpu(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
        return Unsupported("ThreadPerCpu()", "perflab runs a benchmark on one thread", file, line);
    }

    virtual void Run(State& state) = 0;

    // perflab's: where the registration is, for the table and for errors
    void perflab_where(const char* file, int line) {
        file_ = file;
        line_ = line;
    }
    virtual uintptr_t perflab_code() const { return 0; }

   protected:
    explicit Benchmark(const std::string& name = "") : name_(name) {}
    void SetName(const std::string& name) { name_ = name; }
    void SetName(const char* name) { name_ = name; }

   private:
    friend class internal::Instance;
    friend struct PerflabExpand;
    std::string name_;
    std::vector<std::string> arg_names_;
    std::vector<std::vector<int64_t>> args_;
    int multiplier_ = 8;
    IterationCount iterations_ = 0;
    std::function<void(const State&)> setup_, teardown_;
    std::string unsupported_;
    int unsupported_line_ = 0;  // where the API was called, when in the registering file
    const char* file_ = "";
    int line_ = 0;

    Benchmark* Unsupported(const std::string& api, const std::string& why, const char* file, int line) {
        if (unsupported_.empty()) {
            unsupported_ = api + " is not supported: " + why;
            unsupported_line_ = file && file_ && std::string(file) == file_ ? line : 0;
        }
        return this;
    }
    static void AddPowers(std::vector<int64_t>* dst, int64_t lo, int64_t hi, int mult) {
        for (int64_t i = 1; i <= hi; i *= mult) {
            if (i >= lo) dst->push_back(i);
            if (i > std::numeric_limits<int64_t>::max() / mult) break;
        }
    }
    static void AddRange(std::vector<int64_t>* dst, int64_t lo, int64_t hi, int mult) {
        // Google Benchmark's AddRange: lo, the powers of mult strictly inside, hi
        dst->push_back(lo);
        if (lo >= hi) return;
        if (lo + 1 == hi) {
            dst->push_back(hi);
            return;
        }
        int64_t lo_inner = lo + 1, hi_inner = hi - 1;
        if (lo_inner < 0) {
            std::vector<int64_t> neg;
            AddPowers(&neg, -std::min(hi_inner, int64_t(-1)), -lo_inner, mult);
            for (auto it = neg.rbegin(); it != neg.rend(); ++it) dst->push_back(-*it);
        }
        if (lo < 0 && hi >= 0) dst->push_back(0);
        if (hi_inner > 0) AddPowers(dst, std::max(lo_inner, int64_t(1)), hi_inner, mult);
        if (hi != dst->back()) dst->push_back(hi);
    }
};

namespace internal {
class FunctionBenchmark : public Benchmark {
   public:
    FunctionBenchmark(const std::string& name, Function* func) : Benchmark(name), func_(func) {}
    void Run(State& st) override { func_(st); }
    uintptr_t perflab_code() const override { return reinterpret_cast<uintptr_t>(func_); }

   private:
    Function* func_;
};
template <class Lambda>
class LambdaBenchmark : public Benchmark {
   public:
    template <class OLambda>
    LambdaBenchmark(const std::string& name, OLambda&& lam) : Benchmark(name), lambda_(std::forward<OLambda>(lam)) {}
    void Run(State& st) override { lambda_(st); }

   private:
    Lambda lambda_;
};

inline std::vector<Benchmark*>& families() {
    static std::vector<Benchmark*> all;
    return all;
}
inline Benchmark* RegisterBenchmarkInternal(Benchmark* b, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    // from a file's own main(): that file (a default argument's __builtin_FILE may name this header)
    if (::perflab::current_main_file()) file = ::perflab::current_main_file();
    b->perflab_where(file ? file : "", line);
    families().push_back(b);
    return b;
}
template <class T>
inline Benchmark* RegisterBenchmarkInternal(std::unique_ptr<T> b, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    return RegisterBenchmarkInternal(static_cast<Benchmark*>(b.release()), file, line);
}
template <class T, class... Args>
std::unique_ptr<T> make_unique(Args&&... args) {
    return std::unique_ptr<T>(new T(std::forward<Args>(args)...));
}
inline int InitializeStreams() { return 0; }
}  // namespace internal

namespace internal {
// A benchmark's name as RegisterBenchmark receives it, with the caller's file and line.
struct NameAt {
    std::string name;
    const char* file;
    int line;
    NameAt(const std::string& n, const char* f = __builtin_FILE(), int l = __builtin_LINE()) : name(n), file(f), line(l) {}
    NameAt(const char* n, const char* f = __builtin_FILE(), int l = __builtin_LINE()) : name(n), file(f), line(l) {}
};
}  // namespace internal

inline Benchmark* RegisterBenchmark(internal::NameAt name, internal::Function* fn) {
    return internal::RegisterBenchmarkInternal(new internal::FunctionBenchmark(name.name, fn), name.file, name.line);
}
template <class Lambda, class = typename std::enable_if<!std::is_convertible<Lambda, internal::Function*>::value>::type>
Benchmark* RegisterBenchmark(internal::NameAt name, Lambda&& fn) {
    using BenchType = internal::LambdaBenchmark<typename std::decay<Lambda>::type>;
    return internal::RegisterBenchmarkInternal(new BenchType(name.name, std::forward<Lambda>(fn)), name.file, name.line);
}
template <class Lambda, class Arg0, class... Args>
Benchmark* RegisterBenchmark(internal::NameAt name, Lambda&& fn, Arg0&& arg0, Args&&... args) {
    return benchmark::RegisterBenchmark(name, [=](State& st) { fn(st, arg0, args...); });
}

class Fixture : public Benchmark {
   public:
    Fixture() : Benchmark("") {}
    void Run(State& st) override {
        this->SetUp(st);
        this->BenchmarkCase(st);
        this->TearDown(st);
    }
    virtual void SetUp(const State&) {}
    virtual void TearDown(const State&) {}
    virtual void SetUp(State& st) { SetUp(const_cast<const State&>(st)); }
    virtual void TearDown(State& st) { TearDown(const_cast<const State&>(st)); }

   protected:
    virtual void BenchmarkCase(State&) = 0;
};

// ---- the program around the benchmarks: perflab's worker is the runner ------------------------------
inline void Initialize(int*, char**, void (*)() = nullptr) {}
inline void Shutdown() {}
inline bool ReportUnrecognizedArguments(int, char**) { return false; }
inline void SetDefaultTimeUnit(TimeUnit) {}
inline TimeUnit GetDefaultTimeUnit() { return kNanosecond; }
inline void AddCustomContext(const std::string&, const std::string&) {}
inline void MaybeReenterWithoutASLR(int, char**) {}
inline std::string GetBenchmarkFilter() { return ""; }
inline void SetBenchmarkFilter(const std::string&) {}
inline int32_t GetBenchmarkVerbosity() { return 0; }
inline void ClearRegisteredBenchmarks() { internal::families().clear(); }
// Runs perflab's worker over the registered benchmarks (in a file with its own main()); see perflab.hpp.
inline size_t RunSpecifiedBenchmarks() { return ::perflab::run_from_user_main(); }
inline size_t RunSpecifiedBenchmarks(std::string) { return RunSpecifiedBenchmarks(); }

namespace internal {
// One registered benchmark and argument set, as perflab runs it.
class Instance {
   public:
    Benchmark* family;
    std::string name;  // Google Benchmark's run name: family/arg.../iterations:n
    std::vector<int64_t> args;

    // One timed iteration: the benchmark function called once with max_iterations = n (or its fixed
    // Iterations), the time its State's timer ran, scaled to n when KeepRunningBatch overshot.
    static void run(void* self, ::perflab::State&, uint64_t n, bool overhead, uint64_t* ns, uint64_t* cpu) {
        Instance& in = *static_cast<Instance*>(self);
        IterationCount iters = in.family->iterations_ ? in.family->iterations_ : IterationCount(n);
        State st(in.name, iters, in.args, in.family->file_, in.family->line_);
        if (overhead) {
            void (*volatile empty)(State&) = &empty_loop;
            empty(st);
        } else {
            in.family->Run(st);
        }
        if (!overhead) in.last_counters_ = st.counters, in.last_iterations_ = st.iterations();
        if (st.error_occurred()) fail("SkipWithError: " + st.skip_message_, in.family->file_, in.family->line_);
        if (st.skipped()) fail("skipped (SkipWithMessage): " + st.skip_message_, in.family->file_, in.family->line_);
        if (!st.started_ || st.iterations() < st.max_iterations)
            fail("Benchmark returned before State::KeepRunning() returned false!", in.family->file_, in.family->line_);
        if (st.running_) fail("the timer was still running when the benchmark returned (ResumeTiming() after the loop?)", in.family->file_, in.family->line_);
        uint64_t w = st.wall_used_, c = st.cpu_used_;
        if (st.iterations() != st.max_iterations && st.iterations() > 0) {
            double scale = double(st.max_iterations) / double(st.iterations());
            w = uint64_t(double(w) * scale + 0.5);
            c = uint64_t(double(c) * scale + 0.5);
        }
        *ns = w;
        *cpu = c;
    }
    static void setup(void* self, ::perflab::State&) {
        Instance& in = *static_cast<Instance*>(self);
        if (in.family->setup_) {
            State st(in.name, 0, in.args, in.family->file_, in.family->line_);
            in.family->setup_(st);
        }
    }
    static void teardown(void* self, ::perflab::State&) {
        Instance& in = *static_cast<Instance*>(self);
        if (in.family->teardown_) {
            State st(in.name, 0, in.args, in.family->file_, in.family->line_);
            in.family->teardown_(st);
        }
    }
    // Extra fields of the `diagnostics` reply: the user's counters as Google Benchmark finishes them
    // (counter.cc: kIsIterationInvariant multiplies by the iterations, kAvgIterations divides, kInvert
    // inverts) for the last run. A rate (kIsRate, SetBytesProcessed/SetItemsProcessed) goes in `rates`
    // as a quantity per op: the host divides it by the mean it measured (not by this pass's time).
    static std::string diagnostics(void* self, double) {
        Instance& in = *static_cast<Instance*>(self);
        double iters = double(in.last_iterations_ > 0 ? in.last_iterations_ : 1);
        std::string metrics, rates;
        for (auto& kv : in.last_counters_) {
            double v = kv.second.value;
            int f = kv.second.flags;
            if (f & Counter::kIsIterationInvariant) v *= iters;
            if (f & Counter::kAvgIterations) v /= iters;
            bool invert = (f & Counter::kInvert) != 0;
            if (f & Counter::kIsRate) {
                const char* unit = kv.first == "bytes_per_second" ? "B" : "";
                rates += (rates.empty() ? "" : ",") + quote(kv.first) + ":{\"per_op\":" + num(v / iters) +
                         ",\"unit\":\"" + unit + "\",\"base\":" + std::to_string(int(kv.second.oneK)) +
                         ",\"invert\":" + (invert ? "true" : "false") + "}";
                continue;
            }
            if (invert) v = v != 0 ? 1.0 / v : 0;
            metrics += (metrics.empty() ? "" : ",") + quote(kv.first) + ":" + num(v);
        }
        std::string out;
        if (!metrics.empty()) out += ",\"metrics\":{" + metrics + "}";
        if (!rates.empty()) out += ",\"rates\":{" + rates + "}";
        return out;
    }

   private:
    UserCounters last_counters_;
    IterationCount last_iterations_ = 0;
    static std::string quote(const std::string& s) {
        std::string out = "\"";
        for (unsigned char ch : s) {
            if (ch == '"' || ch == '\\') out += '\\', out += char(ch);
            else if (ch < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", ch);
                out += buf;
            } else out += char(ch);
        }
        return out + "\"";
    }
    static std::string num(double v) {
        if (!(v == v) || v - v != 0) return "null";
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        return buf;
    }
    __attribute__((noinline)) static void empty_loop(State& st) {
        for (auto _ : st) {
        }
    }
};
}  // namespace internal

// Turns the registered families into perflab benchmarks, once, before the worker answers `load`.
struct PerflabExpand {
    static std::string arg_text(int64_t v) { return std::to_string(v); }
    static void expand() {
        static bool done = false;
        if (done) return;
        done = true;
        std::map<std::string, int> seen;  // run names so far: a second family with the same name gets " #2"
        for (Benchmark* fam : internal::families()) {
            std::vector<std::vector<int64_t>> sets;
            for (auto& a : fam->args_)  // ->Arg(64)->Range(16, 256) lists 64 twice: one benchmark
                if (std::find(sets.begin(), sets.end(), a) == sets.end()) sets.push_back(a);
            if (sets.empty()) sets.push_back({});
            for (auto& args : sets) {
                auto* in = new internal::Instance();
                in->family = fam;
                in->args = args;
                ::perflab::Def d;
                std::string run_name = fam->name_;
                for (size_t i = 0; i < args.size(); ++i) {
                    std::string pname = i < fam->arg_names_.size() && !fam->arg_names_[i].empty() ? fam->arg_names_[i]
                                                                                                  : "arg" + std::to_string(i);
                    bool named = i < fam->arg_names_.size() && !fam->arg_names_[i].empty();
                    run_name += "/" + (named ? pname + ":" : std::string()) + arg_text(args[i]);
                    d.params.emplace_back(pname, std::vector<std::string>{arg_text(args[i])});
                }
                if (fam->iterations_) run_name += "/iterations:" + std::to_string(fam->iterations_);
                in->name = run_name;
                d.name = fam->name_;
                int n = ++seen[run_name];
                d.id_suffix = n == 1 ? run_name : run_name + " #" + std::to_string(n);
                d.file = fam->file_;
                d.line = fam->line_;
                d.group = ::perflab::detail::stem_of(d.file);
                d.unsupported = fam->unsupported_;
                if (fam->unsupported_line_) d.line = fam->unsupported_line_;
                if (fam->iterations_) {
                    d.ops = fam->iterations_;  // one call runs exactly that many: one invocation per iteration
                    d.one_invocation = true;
                }
                d.self.ctx = in;
                d.self.run = &internal::Instance::run;
                d.self.setup = &internal::Instance::setup;
                d.self.teardown = &internal::Instance::teardown;
                d.self.diagnostics = &internal::Instance::diagnostics;
                d.self.code = fam->perflab_code();
                ::perflab::registry().push_back(std::move(d));
            }
        }
    }
    PerflabExpand() { ::perflab::late_registrars().push_back(&expand); }
};
static PerflabExpand perflab_gbench_expand_ BENCHMARK_UNUSED;

}  // namespace benchmark

// ---- the registration macros, as Google Benchmark spells them ---------------------------------------
#define BENCHMARK_PRIVATE_CONCAT2(a, b, c) a##b##c
#define BENCHMARK_PRIVATE_CONCAT(a, b, c) BENCHMARK_PRIVATE_CONCAT2(a, b, c)
#define BENCHMARK_PRIVATE_NAME(n) BENCHMARK_PRIVATE_CONCAT(benchmark_uniq_, __COUNTER__, n)
#define BENCHMARK_PRIVATE_CONCAT_NAME(BaseClass, Method) BaseClass##_##Method##_Benchmark
#define BENCHMARK_PRIVATE_DECLARE(n) static ::benchmark::Benchmark* BENCHMARK_PRIVATE_NAME(n) BENCHMARK_UNUSED
#define BENCHMARK_PRIVATE_REGISTER(ptr) (::benchmark::internal::RegisterBenchmarkInternal((ptr), __FILE__, __LINE__))

#define BENCHMARK(...)                                                                                            \
    BENCHMARK_PRIVATE_DECLARE(_benchmark_) = BENCHMARK_PRIVATE_REGISTER(new ::benchmark::internal::FunctionBenchmark( \
        #__VA_ARGS__, static_cast<::benchmark::internal::Function*>(__VA_ARGS__)))
#define BENCHMARK_WITH_ARG(n, a) BENCHMARK(n)->Arg((a))
#define BENCHMARK_WITH_ARG2(n, a1, a2) BENCHMARK(n)->Args({(a1), (a2)})
#define BENCHMARK_WITH_UNIT(n, t) BENCHMARK(n)->Unit((t))
#define BENCHMARK_RANGE(n, lo, hi) BENCHMARK(n)->Range((lo), (hi))
#define BENCHMARK_RANGE2(n, l1, h1, l2, h2) BENCHMARK(n)->RangePair((l1), (h1), (l2), (h2))
#define BENCHMARK_CAPTURE(func, test_case_name, ...)                                                     \
    BENCHMARK_PRIVATE_DECLARE(_benchmark_) = BENCHMARK_PRIVATE_REGISTER(                                 \
        new ::benchmark::internal::LambdaBenchmark<std::function<void(::benchmark::State&)>>(            \
            #func "/" #test_case_name, [](::benchmark::State& st) { func(st, __VA_ARGS__); }))
#define BENCHMARK_NAMED(func, test_case_name)                                                                    \
    BENCHMARK_PRIVATE_DECLARE(_benchmark_) = BENCHMARK_PRIVATE_REGISTER(new ::benchmark::internal::FunctionBenchmark( \
        #func "/" #test_case_name, static_cast<::benchmark::internal::Function*>(func)))
#define BENCHMARK_TEMPLATE1(n, a)                                                                                \
    BENCHMARK_PRIVATE_DECLARE(n) = BENCHMARK_PRIVATE_REGISTER(new ::benchmark::internal::FunctionBenchmark(      \
        #n "<" #a ">", static_cast<::benchmark::internal::Function*>(n<a>)))
#define BENCHMARK_TEMPLATE2(n, a, b)                                                                             \
    BENCHMARK_PRIVATE_DECLARE(n) = BENCHMARK_PRIVATE_REGISTER(new ::benchmark::internal::FunctionBenchmark(      \
        #n "<" #a "," #b ">", static_cast<::benchmark::internal::Function*>(n<a, b>)))
#define BENCHMARK_TEMPLATE(n, ...)                                                                               \
    BENCHMARK_PRIVATE_DECLARE(n) = BENCHMARK_PRIVATE_REGISTER(new ::benchmark::internal::FunctionBenchmark(      \
        #n "<" #__VA_ARGS__ ">", static_cast<::benchmark::internal::Function*>(n<__VA_ARGS__>)))
#define BENCHMARK_TEMPLATE1_CAPTURE(func, a, test_case_name, ...) BENCHMARK_CAPTURE(func<a>, test_case_name, __VA_ARGS__)
#define BENCHMARK_TEMPLATE2_CAPTURE(func, a, b, test_case_name, ...)                                      \
    BENCHMARK_PRIVATE_DECLARE(func) = BENCHMARK_PRIVATE_REGISTER(                                         \
        new ::benchmark::internal::LambdaBenchmark<std::function<void(::benchmark::State&)>>(             \
            #func "<" #a "," #b ">/" #test_case_name, [](::benchmark::State& st) { func<a, b>(st, __VA_ARGS__); }))

#define BENCHMARK_PRIVATE_DECLARE_F(BaseClass, Method)                                  \
    class BaseClass##_##Method##_Benchmark : public BaseClass {                         \
       public:                                                                          \
        BaseClass##_##Method##_Benchmark() { this->SetName(#BaseClass "/" #Method); }   \
                                                                                        \
       protected:                                                                       \
        void BenchmarkCase(::benchmark::State&) override;                               \
    };
#define BENCHMARK_TEMPLATE1_PRIVATE_DECLARE_F(BaseClass, Method, a)                           \
    class BaseClass##_##Method##_Benchmark : public BaseClass<a> {                            \
       public:                                                                                \
        BaseClass##_##Method##_Benchmark() { this->SetName(#BaseClass "<" #a ">/" #Method); } \
                                                                                              \
       protected:                                                                             \
        void BenchmarkCase(::benchmark::State&) override;                                     \
    };
#define BENCHMARK_TEMPLATE2_PRIVATE_DECLARE_F(BaseClass, Method, a, b)                                 \
    class BaseClass##_##Method##_Benchmark : public BaseClass<a, b> {                                  \
       public:                                                                                         \
        BaseClass##_##Method##_Benchmark() { this->SetName(#BaseClass "<" #a "," #b ">/" #Method); }   \
                                                                                                       \
       protected:                                                                                      \
        void BenchmarkCase(::benchmark::State&) override;                                              \
    };
#define BENCHMARK_TEMPLATE_PRIVATE_DECLARE_F(BaseClass, Method, ...)                                     \
    class BaseClass##_##Method##_Benchmark : public BaseClass<__VA_ARGS__> {                             \
       public:                                                                                           \
        BaseClass##_##Method##_Benchmark() { this->SetName(#BaseClass "<" #__VA_ARGS__ ">/" #Method); }  \
                                                                                                         \
       protected:                                                                                        \
        void BenchmarkCase(::benchmark::State&) override;                                                \
    };
#define BENCHMARK_DEFINE_F(BaseClass, Method) \
    BENCHMARK_PRIVATE_DECLARE_F(BaseClass, Method) void BENCHMARK_PRIVATE_CONCAT_NAME(BaseClass, Method)::BenchmarkCase
#define BENCHMARK_TEMPLATE1_DEFINE_F(BaseClass, Method, a) \
    BENCHMARK_TEMPLATE1_PRIVATE_DECLARE_F(BaseClass, Method, a) void BENCHMARK_PRIVATE_CONCAT_NAME(BaseClass, Method)::BenchmarkCase
#define BENCHMARK_TEMPLATE2_DEFINE_F(BaseClass, Method, a, b) \
    BENCHMARK_TEMPLATE2_PRIVATE_DECLARE_F(BaseClass, Method, a, b) void BENCHMARK_PRIVATE_CONCAT_NAME(BaseClass, Method)::BenchmarkCase
#define BENCHMARK_TEMPLATE_DEFINE_F(BaseClass, Method, ...) \
    BENCHMARK_TEMPLATE_PRIVATE_DECLARE_F(BaseClass, Method, __VA_ARGS__) void BENCHMARK_PRIVATE_CONCAT_NAME(BaseClass, Method)::BenchmarkCase
#define BENCHMARK_PRIVATE_REGISTER_F(TestName) \
    BENCHMARK_PRIVATE_DECLARE(TestName) = BENCHMARK_PRIVATE_REGISTER(new TestName())
#define BENCHMARK_REGISTER_F(BaseClass, Method) BENCHMARK_PRIVATE_REGISTER_F(BENCHMARK_PRIVATE_CONCAT_NAME(BaseClass, Method))
#define BENCHMARK_F(BaseClass, Method)                                   \
    BENCHMARK_PRIVATE_DECLARE_F(BaseClass, Method)                       \
    BENCHMARK_REGISTER_F(BaseClass, Method);                             \
    void BENCHMARK_PRIVATE_CONCAT_NAME(BaseClass, Method)::BenchmarkCase
#define BENCHMARK_TEMPLATE1_F(BaseClass, Method, a)                      \
    BENCHMARK_TEMPLATE1_PRIVATE_DECLARE_F(BaseClass, Method, a)          \
    BENCHMARK_REGISTER_F(BaseClass, Method);                             \
    void BENCHMARK_PRIVATE_CONCAT_NAME(BaseClass, Method)::BenchmarkCase
#define BENCHMARK_TEMPLATE2_F(BaseClass, Method, a, b)                   \
    BENCHMARK_TEMPLATE2_PRIVATE_DECLARE_F(BaseClass, Method, a, b)       \
    BENCHMARK_REGISTER_F(BaseClass, Method);                             \
    void BENCHMARK_PRIVATE_CONCAT_NAME(BaseClass, Method)::BenchmarkCase
#define BENCHMARK_TEMPLATE_F(BaseClass, Method, ...)                     \
    BENCHMARK_TEMPLATE_PRIVATE_DECLARE_F(BaseClass, Method, __VA_ARGS__) \
    BENCHMARK_REGISTER_F(BaseClass, Method);                             \
    void BENCHMARK_PRIVATE_CONCAT_NAME(BaseClass, Method)::BenchmarkCase

// perflab generates the program's main(): in a benchmark file this expands to a harmless declaration.
#define BENCHMARK_MAIN() static_assert(true, "perflab's worker runs the registered benchmarks")

#endif  // BENCHMARK_BENCHMARK_H_
