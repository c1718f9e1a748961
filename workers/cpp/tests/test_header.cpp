// Native test of perflab.hpp: the worker driven over a socketpair in-process (hello, load, stages,
// params by index, exceptions, state/protocol/version errors, allocation counting, code size, dead-code trap,
// with_overhead).
#define PERFLAB_MAIN
#define PERFLAB_NO_MAIN_FUNCTION
#include "perflab.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

static long long a_ = 1, b_ = 2;
PERFLAB_BENCH(noop) {}
PERFLAB_BENCH(add) {
    perflab::do_not_optimize(a_);
    perflab::do_not_optimize(b_);
    perflab::do_not_optimize(a_ + b_);
}
PERFLAB_BENCH(sized, perflab::param("n", {1, 10, 100})) {
    std::vector<long long> v(static_cast<size_t>(state.range(0)));
    perflab::do_not_optimize(v.data());
}
PERFLAB_BENCH(boom) { throw std::runtime_error("boom"); }
PERFLAB_BENCH(base, perflab::baseline(), perflab::ops(4), perflab::category("c")) {}
static int setup_calls = 0, teardown_calls = 0;
PERFLAB_BENCH(hooks, perflab::param("s", {"x", "y"}),
              perflab::setup([](perflab::State& s) { setup_calls += s.param("s") == "y" ? 10 : 1; }),
              perflab::teardown([](perflab::State&) { ++teardown_calls; })) {}
PERFLAB_BENCH(setup_throws, perflab::setup([](perflab::State&) { throw std::logic_error("no fixture"); })) {}
static long long trap_n = 5000;
PERFLAB_BENCH(trap) {
    unsigned long long s = 0;
    for (long long i = 0; i < trap_n; ++i) s += (unsigned long long)(i * i) ^ (s >> 3);
    perflab::do_not_optimize(s);
}
static int it_setups = 0, it_teardowns = 0;
static std::vector<int>* consumed = nullptr;
PERFLAB_BENCH(consume, perflab::iteration_setup([](perflab::State&) { ++it_setups; consumed = new std::vector<int>(8); }),
              perflab::iteration_teardown([](perflab::State&) { ++it_teardowns; delete consumed; consumed = nullptr; })) {
    perflab::do_not_optimize(consumed->size());
}
PERFLAB_BENCH(write_small, perflab::name("Write"), perflab::group("grp_a"), perflab::meta("seed", "002"),
              perflab::meta("section", std::string("Scatter/Gather")), perflab::meta("scenario", true),
              perflab::meta("file_size", 10000000), perflab::meta("ratio", 0.5), perflab::meta("seed", "003")) {}
PERFLAB_BENCH(write_large, perflab::name("Write"), perflab::group("grp_b")) {}
static void c_style(void) {}
static int c_registered = perflab_register_c("c_style", c_style);

static int failures = 0;
#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                          \
        }                                                                        \
    } while (0)

using perflab::detail::Json;
using perflab::detail::Parser;

struct Host {
    int fd;
    std::string buf;
    long long next = 0;
    Json read() {
        while (buf.find('\n') == std::string::npos) {
            char c[4096];
            ssize_t n = recv(fd, c, sizeof c, 0);
            if (n <= 0) throw std::runtime_error("worker closed the socket");
            buf.append(c, size_t(n));
        }
        size_t nl = buf.find('\n');
        std::string line = buf.substr(0, nl);
        buf.erase(0, nl + 1);
        return Parser(line).parse();
    }
    Json raw(const std::string& line) {
        std::string l = line + "\n";
        send(fd, l.data(), l.size(), 0);
        return read();
    }
    Json req(const std::string& body) {
        ++next;
        Json r = raw("{\"v\":2,\"id\":" + std::to_string(next) + (body.empty() ? "" : ",") + body + "}");
        CHECK(r.get("id") && r.get("id")->i == next);
        CHECK(r.get("v") && r.get("v")->i == 2);
        return r;
    }
};

static std::string type(const Json& r) { return r.get("type") ? r.get("type")->s : ""; }
static std::string err_kind(const Json& r) {
    return type(r) == "error" && r.get("error") && r.get("error")->get("kind") ? r.get("error")->get("kind")->s : "(not an error)";
}
static std::vector<long long> ns(const Json& r, const char* field = "ns") {
    std::vector<long long> out;
    if (const Json* a = r.get(field))
        for (auto& x : a->arr) out.push_back(x.kind == Json::Int ? x.i : -1);
    return out;
}
static bool has_cap(const Json& hello, const char* cap) {
    const Json* caps = hello.get("capabilities");
    if (caps)
        for (auto& c : caps->arr)
            if (c.kind == Json::Str && c.s == cap) return true;
    return false;
}

// do_not_optimize on an array or a wide object must leave its contents intact (GCC -O2 once wrote
// garbage back into an array through the "+m,r" constraint).
__attribute__((noinline)) static void check_sinks() {
    const char* args[4] = {"a", "b", "c", "d"};
    perflab::do_not_optimize(args);
    CHECK(args[0] && args[3] && args[0][0] == 'a' && args[3][0] == 'd');
    struct Wide { long long x[4]; } w = {{1, 2, 3, 4}};
    perflab::do_not_optimize(w);
    CHECK(w.x[0] == 1 && w.x[3] == 4);
    int n = 42;
    perflab::do_not_optimize(n);
    CHECK(n == 42);
}

int main() {
    (void)c_registered;
    check_sinks();
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 2;
    setenv("PERFLAB_TOKEN", "feedfacefeedfacefeedfacefeedface", 1);
    std::thread worker([&] { perflab::detail::Worker(sv[1]).serve(); });
    Host h{sv[0], "", 0};
    try {
        Json hello = h.read();
        CHECK(type(hello) == "hello");
        CHECK(hello.get("token")->s == "feedfacefeedfacefeedfacefeedface");
        CHECK(hello.get("language")->s == "cpp");
        CHECK(hello.get("clock")->get("resolution_ns")->i >= 1);
        CHECK(hello.get("cpu_clock")->get("scope")->s == "thread" && hello.get("cpu_clock")->get("resolution_ns")->i >= 1);
        CHECK(has_cap(hello, "with_overhead"));
        CHECK(has_cap(hello, "overhead_first"));

        CHECK(err_kind(h.req("\"type\":\"run\",\"stage\":\"workload\",\"invocations\":1,\"iterations\":1")) == "state");
        Json loaded = h.req("\"type\":\"load\",\"paths\":[],\"root\":\"\"");
        CHECK(type(loaded) == "loaded");
        CHECK(loaded.get("benchmarks")->arr.size() == 12);
        CHECK(loaded.get("errors")->arr.empty());
        int writes = 0;
        for (auto& b : loaded.get("benchmarks")->arr) {
            const Json* m = b.get("meta");
            CHECK(m && m->kind == Json::Obj);
            if (b.get("name")->s != "Write") {
                CHECK(m->obj.empty());
                continue;
            }
            ++writes;
            if (b.get("id")->s == "grp_a.Write") {
                CHECK(m->obj.size() == 5);
                CHECK(m->get("seed") && m->get("seed")->s == "003");  // the last value of a repeated key
                CHECK(m->get("section") && m->get("section")->s == "Scatter/Gather");
                CHECK(m->get("scenario") && m->get("scenario")->kind == Json::Bool && m->get("scenario")->b);
                CHECK(m->get("file_size") && m->get("file_size")->kind == Json::Int && m->get("file_size")->i == 10000000);
                CHECK(m->get("ratio") && m->get("ratio")->kind == Json::Float && m->get("ratio")->f == 0.5);
            } else {
                CHECK(b.get("id")->s == "grp_b.Write" && m->obj.empty());
            }
        }
        CHECK(writes == 2);
        bool saw_base = false, saw_c = false;
        for (auto& b : loaded.get("benchmarks")->arr) {
            if (b.get("name")->s == "base") {
                saw_base = b.get("baseline")->b && b.get("ops_per_invoke")->i == 4 && b.get("id")->s == "test_header.base";
            }
            if (b.get("name")->s == "c_style") saw_c = true;
        }
        CHECK(saw_base);
        CHECK(saw_c);

        CHECK(type(h.req("\"type\":\"setup\",\"benchmark\":\"test_header.sized\",\"params\":{\"n\":2}")) == "ready");
        for (const char* stage : {"pilot", "warmup", "overhead", "workload"}) {
            Json r = h.req(std::string("\"type\":\"run\",\"stage\":\"") + stage + "\",\"invocations\":7,\"iterations\":3");
            CHECK(type(r) == "samples" && ns(r).size() == 3 && r.get("invocations")->i == 7);
            CHECK(ns(r, "cpu_ns").size() == 3);
            CHECK(!r.get("overhead_ns") && !r.get("overhead_cpu_ns"));
        }
        {  // with_overhead: one overhead sample per workload sample; false means the plain reply
            Json r = h.req("\"type\":\"run\",\"stage\":\"workload\",\"invocations\":7,\"iterations\":3,\"with_overhead\":true");
            auto over = ns(r, "overhead_ns");
            CHECK(type(r) == "samples" && ns(r).size() == 3 && over.size() == 3 && r.get("invocations")->i == 7);
            CHECK(ns(r, "cpu_ns").size() == 3 && ns(r, "overhead_cpu_ns").size() == 3);
            CHECK(std::all_of(over.begin(), over.end(), [](long long x) { return x >= 0; }));
            Json f = h.req("\"type\":\"run\",\"stage\":\"workload\",\"invocations\":7,\"iterations\":2,\"with_overhead\":false");
            CHECK(type(f) == "samples" && ns(f).size() == 2 && !f.get("overhead_ns"));
        }
        for (const char* stage : {"pilot", "warmup", "overhead", "diagnose"}) {
            Json r = h.req(std::string("\"type\":\"run\",\"stage\":\"") + stage + "\",\"invocations\":7,\"iterations\":1,\"with_overhead\":true");
            CHECK(err_kind(r) == "protocol" && r.get("error")->get("message")->s.find("with_overhead") != std::string::npos);
        }
        Json d = h.req("\"type\":\"run\",\"stage\":\"diagnose\",\"invocations\":5,\"iterations\":2");
        CHECK(type(d) == "diagnostics");
        CHECK(d.get("allocs")->i == 10 && d.get("alloc_bytes")->i == 10 * 100 * 8);
        CHECK(d.get("code_size")->kind == Json::Int && d.get("code_size")->i > 0);
        CHECK(type(h.req("\"type\":\"teardown\"")) == "done");

        CHECK(err_kind(h.req("\"type\":\"setup\",\"benchmark\":\"test_header.sized\",\"params\":{\"n\":3}")) == "not_found");
        CHECK(err_kind(h.req("\"type\":\"setup\",\"benchmark\":\"test_header.sized\",\"params\":{}")) == "not_found");
        CHECK(err_kind(h.req("\"type\":\"setup\",\"benchmark\":\"nope\",\"params\":{}")) == "not_found");
        Json st = h.req("\"type\":\"setup\",\"benchmark\":\"test_header.setup_throws\",\"params\":{}");
        CHECK(err_kind(st) == "exception" && st.get("error")->get("message")->s.find("no fixture") != std::string::npos);

        CHECK(type(h.req("\"type\":\"setup\",\"benchmark\":\"test_header.hooks\",\"params\":{\"s\":1}")) == "ready");
        CHECK(setup_calls == 10);
        CHECK(type(h.req("\"type\":\"teardown\"")) == "done");
        CHECK(teardown_calls == 1);

        CHECK(type(h.req("\"type\":\"setup\",\"benchmark\":\"test_header.boom\",\"params\":{}")) == "ready");
        Json e = h.req("\"type\":\"run\",\"stage\":\"workload\",\"invocations\":1,\"iterations\":1");
        CHECK(err_kind(e) == "exception");
        CHECK(e.get("error")->get("message")->s == "std::runtime_error: boom");

        CHECK(type(h.req("\"type\":\"setup\",\"benchmark\":\"test_header.consume\",\"params\":{}")) == "ready");
        CHECK(ns(h.req("\"type\":\"run\",\"stage\":\"workload\",\"invocations\":1,\"iterations\":3")).size() == 3);
        Json dc = h.req("\"type\":\"run\",\"stage\":\"diagnose\",\"invocations\":1,\"iterations\":2");
        CHECK(dc.get("allocs") && dc.get("allocs")->i == 0);  // the iteration setup's allocations are not counted
        CHECK(it_setups == 5 && it_teardowns == 5);
        // the hooks run around the workload iteration only, not around its overhead iteration (which would
        // also crash here if it called the body: `consumed` is null outside the hooks)
        Json cw = h.req("\"type\":\"run\",\"stage\":\"workload\",\"invocations\":1,\"iterations\":3,\"with_overhead\":true");
        CHECK(ns(cw).size() == 3 && ns(cw, "overhead_ns").size() == 3);
        CHECK(it_setups == 8 && it_teardowns == 8);
        // overhead_first: the empty iteration before each workload one, still outside the hooks
        Json cf = h.req("\"type\":\"run\",\"stage\":\"workload\",\"invocations\":1,\"iterations\":2,\"with_overhead\":true,\"overhead_first\":true");
        CHECK(ns(cf).size() == 2 && ns(cf, "overhead_ns").size() == 2 && ns(cf, "overhead_cpu_ns").size() == 2);
        CHECK(it_setups == 10 && it_teardowns == 10);
        for (auto& b : loaded.get("benchmarks")->arr)
            if (b.get("name")->s == "consume") CHECK(b.get("iteration_setup")->b);
            else CHECK(!b.get("iteration_setup")->b);

        CHECK(type(h.req("\"type\":\"setup\",\"benchmark\":\"test_header.c_style\",\"params\":{}")) == "ready");
        CHECK(ns(h.req("\"type\":\"run\",\"stage\":\"workload\",\"invocations\":10,\"iterations\":2")).size() == 2);
        CHECK(ns(h.req("\"type\":\"run\",\"stage\":\"workload\",\"invocations\":10,\"iterations\":2,\"with_overhead\":true"), "overhead_ns").size() == 2);

        CHECK(type(h.req("\"type\":\"setup\",\"benchmark\":\"test_header.trap\",\"params\":{}")) == "ready");
        auto work = ns(h.req("\"type\":\"run\",\"stage\":\"workload\",\"invocations\":100,\"iterations\":5"));
        auto over = ns(h.req("\"type\":\"run\",\"stage\":\"overhead\",\"invocations\":100,\"iterations\":5"));
        std::sort(work.begin(), work.end());
        std::sort(over.begin(), over.end());
        CHECK(work.size() == 5 && over.size() == 5 && work[2] > 20 * over[2]);
        Json paired = h.req("\"type\":\"run\",\"stage\":\"workload\",\"invocations\":100,\"iterations\":5,\"with_overhead\":true");
        for (const char* field : {"ns", "overhead_ns"}) {  // a busy thread's CPU time: at most its wall time
            auto wall = ns(paired, field);       // (+ the host's 1 ms slack for the reads outside it)
            auto cpu = ns(paired, field[0] == 'n' ? "cpu_ns" : "overhead_cpu_ns");
            CHECK(cpu.size() == wall.size());
            for (size_t k = 0; k < cpu.size() && k < wall.size(); ++k) CHECK(cpu[k] >= 0 && cpu[k] <= wall[k] + 1000000);
        }
        work = ns(paired);
        over = ns(paired, "overhead_ns");  // the empty function, not the benchmark
        std::sort(work.begin(), work.end());
        std::sort(over.begin(), over.end());
        CHECK(work.size() == 5 && over.size() == 5 && work[2] > 20 * over[2]);

        CHECK(err_kind(h.raw("this is not json")) == "protocol");
        CHECK(err_kind(h.raw("[1, 2, 3]")) == "protocol");
        CHECK(err_kind(h.req("\"type\":\"frobnicate\"")) == "protocol");
        CHECK(err_kind(h.req("\"type\":\"run\",\"invocations\":1,\"iterations\":1")) == "protocol");
        CHECK(err_kind(h.req("\"type\":\"run\",\"stage\":\"workload\",\"invocations\":0,\"iterations\":1")) == "protocol");
        CHECK(err_kind(h.req("\"type\":\"run\",\"stage\":\"sideways\",\"invocations\":1,\"iterations\":1")) == "protocol");
        Json j = Parser("{\"s\":\"a\\n\\\"\\u00e9\\ud83d\\ude00\",\"n\":-12,\"f\":1.5e3}").parse();
        CHECK(j.get("s")->s == "a\n\"\xc3\xa9\xf0\x9f\x98\x80" && j.get("n")->i == -12 && j.get("f")->f == 1500.0);
        CHECK(err_kind(h.raw("{\"v\":3,\"id\":77,\"type\":\"load\"}")) == "version");
    } catch (const std::exception& ex) {
        std::fprintf(stderr, "error: %s\n", ex.what());
        ++failures;
    }
    shutdown(sv[0], SHUT_RDWR);
    worker.join();
    if (failures) {
        std::fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    std::printf("perflab.hpp: all checks passed\n");
    return 0;
}
