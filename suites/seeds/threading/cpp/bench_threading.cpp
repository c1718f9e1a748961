// Threading experiments of seeds 000 (".NET 6": Threading), 001 (threading sections of .NET 6/7/8) and
// 003 (".NET Core 3.0": Threading), ported to C++17's <thread>, <future>, <mutex> and
// <condition_variable>. Names follow the seeds' methods.
//
// C++17 has no thread pool, no cancellation token (std::stop_source is C++20), no semaphore
// (std::counting_semaphore is C++20) and no channel: the small ones the seeds need are written here on
// top of the standard primitives (a pool in suites/seeds/common/cpp/seed_executor.hpp; CancellationTokenSource modelled on
// C++20's std::stop_source/std::stop_callback; a mutex + condition-variable semaphore and channel).
#include "perflab.hpp"
#include "../../common/cpp/seed_executor.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

#define SEED_META(seed, section) perflab::meta("seed", seed), perflab::meta("section", section)
#define CANCEL_DIFFERENT perflab::meta("fidelity", "different: C++17 has no cancellation token; the port's own CancellationTokenSource is measured")

// ---- CancellationTokenSource: a shared state with a lock and an intrusive list of registrations ----

struct Registration {
    void (*fn)(void*) = nullptr;
    void* arg = nullptr;
    Registration* prev = nullptr;
    Registration* next = nullptr;
    bool linked = false;
};

struct CancelState {
    std::mutex m;
    Registration* head = nullptr;
    std::atomic<bool> cancelled{false};
};

class CancellationToken {
   public:
    explicit CancellationToken(std::shared_ptr<CancelState> s) : s_(std::move(s)) {}
    bool is_cancellation_requested() const { return s_ && s_->cancelled.load(std::memory_order_acquire); }
    CancelState* state() const { return s_.get(); }

   private:
    std::shared_ptr<CancelState> s_;
};

class CancellationTokenSource {
   public:
    CancellationTokenSource() : s_(std::make_shared<CancelState>()) {}
    CancellationToken token() const { return CancellationToken(s_); }
    void cancel() {
        std::unique_lock<std::mutex> lock(s_->m);
        if (s_->cancelled.exchange(true)) return;
        while (Registration* r = s_->head) {  // run and unlink every callback, outside the lock
            s_->head = r->next;
            if (r->next) r->next->prev = nullptr;
            r->linked = false;
            lock.unlock();
            r->fn(r->arg);
            lock.lock();
        }
    }

   private:
    std::shared_ptr<CancelState> s_;
};

/// token.Register(callback) … Dispose(): registered on construction, unregistered on destruction
/// (the std::stop_callback shape: the registration lives in this object, no allocation).
class CancellationTokenRegistration {
   public:
    CancellationTokenRegistration(const CancellationToken& t, void (*fn)(void*), void* arg) : s_(t.state()) {
        node_.fn = fn;
        node_.arg = arg;
        std::unique_lock<std::mutex> lock(s_->m);
        if (s_->cancelled.load(std::memory_order_relaxed)) {
            lock.unlock();
            fn(arg);
            return;
        }
        node_.next = s_->head;
        if (s_->head) s_->head->prev = &node_;
        s_->head = &node_;
        node_.linked = true;
    }
    CancellationTokenRegistration(const CancellationTokenRegistration&) = delete;
    CancellationTokenRegistration& operator=(const CancellationTokenRegistration&) = delete;
    ~CancellationTokenRegistration() {
        std::lock_guard<std::mutex> lock(s_->m);
        if (!node_.linked) return;
        if (node_.prev) node_.prev->next = node_.next;
        else s_->head = node_.next;
        if (node_.next) node_.next->prev = node_.prev;
    }

   private:
    CancelState* s_;
    Registration node_;
};

/// CancellationTokenSource.CreateLinkedTokenSource(parent): cancelled when the parent is.
class LinkedCancellationTokenSource {
   public:
    explicit LinkedCancellationTokenSource(const CancellationToken& parent)
        : link_(parent, [](void* self) { static_cast<CancellationTokenSource*>(self)->cancel(); }, &source_) {}
    CancellationToken token() const { return source_.token(); }

   private:
    CancellationTokenSource source_;
    CancellationTokenRegistration link_;
};

void nop_callback(void*) {}
void nop_callback2(void*) {}
void nop_callback3(void*) {}
void nop_callback4(void*) {}
void nop_callback5(void*) {}

// ---- a semaphore (SemaphoreSlim(0)) ----------------------------------------------------------------

class Semaphore {
   public:
    void release() {
        {
            std::lock_guard<std::mutex> lock(m_);
            ++count_;
        }
        cv_.notify_one();
    }
    void acquire() {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [this] { return count_ > 0; });
        --count_;
    }
    bool try_acquire_for(std::chrono::milliseconds timeout) {
        std::unique_lock<std::mutex> lock(m_);
        if (!cv_.wait_for(lock, timeout, [this] { return count_ > 0; })) return false;
        --count_;
        return true;
    }

   private:
    std::mutex m_;
    std::condition_variable cv_;
    long count_ = 0;
};

// ---- an unbounded channel (Channel.CreateUnbounded<int>) -------------------------------------------

template <class T>
class Channel {
   public:
    void write(T v) {
        {
            std::lock_guard<std::mutex> lock(m_);
            q_.push_back(std::move(v));
        }
        cv_.notify_one();
    }
    T read() {
        std::unique_lock<std::mutex> lock(m_);
        cv_.wait(lock, [this] { return !q_.empty(); });
        T v = std::move(q_.front());
        q_.pop_front();
        return v;
    }

   private:
    std::mutex m_;
    std::condition_variable cv_;
    std::deque<T> q_;
};

}  // namespace

// -- Thread-pool starvation (000 "Threading", a console app with a stopwatch) ----------------------

// One invocation = the seed's whole scenario: `items` tasks that block until a final task sets an event;
// time until all are done. std::async(std::launch::async) starts a thread per task (libstdc++ has no
// pool), so nothing starves: what is measured is starting `workers` threads and releasing them.
PERFLAB_BENCH(ThreadPoolStarvation, perflab::param("items", {48}), perflab::param("workers", {49}),
              perflab::category("threading"), perflab::category("quick"), SEED_META("000", "Threading"),
              perflab::meta("scenario", true),
              perflab::meta("fidelity", "different: std::async starts a thread per task (C++ std has no pool), so nothing starves")) {
    long long items = state.range(0);
    std::promise<void> tcs;
    std::shared_future<void> done = tcs.get_future().share();
    std::vector<std::future<void>> tasks;
    tasks.reserve(size_t(items + 1));
    for (long long i = 0; i < items; ++i) tasks.push_back(std::async(std::launch::async, [done] { done.wait(); }));
    tasks.push_back(std::async(std::launch::async, [&tcs] { tcs.set_value(); }));
    for (auto& t : tasks) t.wait();
}

// -- CancellationToken register/dispose (000 "Threading") -------------------------------------------

static CancellationTokenSource s_parent;

PERFLAB_BENCH(CreateTokenDispose, perflab::category("threading"), perflab::category("quick"),
              SEED_META("000", "Threading"),
              perflab::meta("fidelity", "different: C++17 has no cancellation token; the port's own CancellationTokenSource is measured")) {
    CancellationTokenSource cts;
    CancellationToken token = cts.token();
    perflab::do_not_optimize(token);
}

PERFLAB_BENCH(CreateRegisterDispose, perflab::category("threading"), SEED_META("000", "Threading"), CANCEL_DIFFERENT) {
    CancellationTokenSource cts;
    CancellationTokenRegistration r(cts.token(), nop_callback, nullptr);
    perflab::clobber_memory();
}

PERFLAB_BENCH(CreateLinkedTokenDispose, perflab::category("threading"), SEED_META("000", "Threading"),
              CANCEL_DIFFERENT) {
    LinkedCancellationTokenSource cts(s_parent.token());
    CancellationToken token = cts.token();
    perflab::do_not_optimize(token);
}

constexpr long long MANY = 10000;

// One token, 10 000 register/dispose pairs (the seed: 1 000 000; ops keeps it per pair).
PERFLAB_BENCH(CreateManyRegisterDispose, perflab::ops(MANY), perflab::category("threading"),
              SEED_META("000", "Threading"), CANCEL_DIFFERENT) {
    CancellationTokenSource cts;
    CancellationToken ct = cts.token();
    for (long long i = 0; i < MANY; ++i) {
        CancellationTokenRegistration r(ct, nop_callback, nullptr);
        perflab::clobber_memory();
    }
}

// Five registrations alive at once, disposed in reverse order (C++ destroys locals in reverse), 10 000 times.
PERFLAB_BENCH(CreateManyRegisterMultipleDispose, perflab::ops(MANY), perflab::category("threading"),
              SEED_META("000", "Threading"), CANCEL_DIFFERENT) {
    CancellationTokenSource cts;
    CancellationToken ct = cts.token();
    for (long long i = 0; i < MANY; ++i) {
        CancellationTokenRegistration r1(ct, nop_callback, nullptr);
        CancellationTokenRegistration r2(ct, nop_callback2, nullptr);
        CancellationTokenRegistration r3(ct, nop_callback3, nullptr);
        CancellationTokenRegistration r4(ct, nop_callback4, nullptr);
        CancellationTokenRegistration r5(ct, nop_callback5, nullptr);
        perflab::clobber_memory();
    }
}

// The thread-world form: create an event (a std::promise and its future), signal it, observe it.
PERFLAB_BENCH(CancelEvent, perflab::category("threading"), perflab::meta("extra", true), perflab::meta("related", "000 · Threading")) {
    std::promise<void> ev;
    std::future<void> f = ev.get_future();
    ev.set_value();
    bool set = f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    perflab::do_not_optimize(set);
}

// -- SemaphoreSlim.WaitAsync with a token / timeout (000 "Threading") -------------------------------

static Semaphore s_sem;

// Release, then acquire with no timeout (a std semaphore has no token: a blocking acquire).
PERFLAB_BENCH(WithCancellationToken, perflab::category("threading"), perflab::category("quick"),
              SEED_META("000", "Threading"),
              perflab::meta("fidelity", "different: the port's own mutex + condition_variable semaphore, released before the acquire (no async wait, no token)")) {
    s_sem.release();
    s_sem.acquire();
}

// Release, then acquire with a one-minute timeout.
PERFLAB_BENCH(WithTimeout, perflab::category("threading"), SEED_META("000", "Threading"),
              perflab::meta("fidelity", "different: the port's own mutex + condition_variable semaphore, released before the timed acquire")) {
    s_sem.release();
    if (!s_sem.try_acquire_for(std::chrono::minutes(1))) throw std::runtime_error("semaphore timed out");
}

static std::unique_ptr<Executor> s_pool;

// Release, then run the acquire on a pool thread and wait for its future with a one-minute timeout.
PERFLAB_BENCH(WithTimeoutAsync, perflab::category("threading"), perflab::meta("extra", true), perflab::meta("related", "000 · Threading"),
              perflab::setup([](perflab::State&) { s_pool = std::make_unique<Executor>(1); }),
              perflab::teardown([](perflab::State&) { s_pool.reset(); })) {
    s_sem.release();
    std::future<bool> f = s_pool->submit([] { return s_sem.try_acquire_for(std::chrono::minutes(1)); });
    if (f.wait_for(std::chrono::minutes(1)) != std::future_status::ready || !f.get())
        throw std::runtime_error("semaphore timed out");
}

// -- Channels PingPong (003 "Threading") ------------------------------------------------------------

struct PingPongFixture {
    Channel<int> to_echo, back;
    std::thread echo;
};
static std::unique_ptr<PingPongFixture> s_pp;

// Two threads and two unbounded channels: 10 000 round trips per call (seed: Channel<int> ping-pong).
PERFLAB_BENCH(PingPong, perflab::ops(10000), perflab::category("threading"), perflab::category("quick"),
              SEED_META("003", "Threading"),
              perflab::meta("fidelity", "partial: C++ std has no channel; the port's mutex + condition_variable queue stands for Channel<int>"),
              perflab::setup([](perflab::State&) {
                  s_pp = std::make_unique<PingPongFixture>();
                  PingPongFixture* p = s_pp.get();
                  p->echo = std::thread([p] {
                      for (;;) {
                          int item = p->to_echo.read();
                          if (item < 0) return;
                          p->back.write(item);
                      }
                  });
              }),
              perflab::teardown([](perflab::State&) {
                  s_pp->to_echo.write(-1);
                  s_pp->echo.join();
                  s_pp.reset();
              })) {
    PingPongFixture& p = *s_pp;
    for (int i = 0; i < 10000; ++i) {
        p.to_echo.write(i);
        perflab::do_not_optimize(p.back.read());
    }
}

// -- Parallel (001 "Parallel", 000) -----------------------------------------------------------------

static std::unique_ptr<Executor> s_workers;
#define PARALLEL_FIXTURE                                                                              \
    perflab::param("count", {1000}),                                                                  \
        perflab::setup([](perflab::State&) { s_workers = std::make_unique<Executor>(2); }),          \
        perflab::teardown([](perflab::State&) { s_workers.reset(); })

// Parallel.For over a range on a pool of 2 workers (the machine's cores), in chunks of 64.
PERFLAB_BENCH(ParallelFor, PARALLEL_FIXTURE, perflab::category("threading"), perflab::meta("extra", true), perflab::meta("related", "001 · Parallel")) {
    long long count = state.range(0);
    std::vector<std::future<long long>> parts;
    for (long long lo = 0; lo < count; lo += 64) {
        long long hi = lo + 64 < count ? lo + 64 : count;
        parts.push_back(s_workers->submit([lo, hi] {
            long long s = 0;
            for (long long i = lo; i < hi; ++i) s += i * i;
            return s;
        }));
    }
    long long total = 0;
    for (auto& p : parts) total += p.get();
    perflab::do_not_optimize(total);
}

// `count` tiny tasks on the pool, then every future awaited (Parallel.ForEachAsync's shape).
PERFLAB_BENCH(ParallelForEachAsync, PARALLEL_FIXTURE, perflab::category("threading"), perflab::meta("extra", true), perflab::meta("related", "000 · Threading")) {
    long long count = state.range(0);
    std::vector<std::future<long long>> tasks;
    tasks.reserve(size_t(count));
    for (long long i = 0; i < count; ++i) tasks.push_back(s_workers->submit([i] { return i * i; }));
    long long total = 0;
    for (auto& t : tasks) total += t.get();
    perflab::do_not_optimize(total);
}

// -- ThreadStatic (001), Tasks (001), CurrentThread (003) -------------------------------------------

static thread_local long long t_value = 0;

// ++t_value on a [ThreadStatic] field ↔ a thread_local variable.
PERFLAB_BENCH(Increment, perflab::category("threading"), SEED_META("001", "ThreadStatic"),
              perflab::meta("fidelity", "faithful")) {
    ++t_value;
    perflab::do_not_optimize(t_value);
}

// await Task.Yield() ↔ std::this_thread::yield() (C++17 has no coroutines).
PERFLAB_BENCH(YieldOnce, perflab::category("threading"), SEED_META("001", "Tasks"),
              perflab::meta("fidelity", "different: C++17 has no coroutines or thread pool; std::this_thread::yield() (a sched_yield) stands for the task's hop to the pool")) {
    std::this_thread::yield();
}

PERFLAB_BENCH(CurrentThread, perflab::category("threading"), SEED_META("003", "Threading"),
              perflab::meta("fidelity", "partial: C++ has no current-thread object; std::this_thread::get_id() returns an id")) {
    std::thread::id id = std::this_thread::get_id();
    perflab::do_not_optimize(id);
}
