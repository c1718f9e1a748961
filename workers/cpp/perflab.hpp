// perflab.hpp — perflab's C/C++ worker: benchmark registration and the protocol v2 client (POSIX sockets).
//
// C++17:
//     #include "perflab.hpp"
//     static std::vector<int> data;
//     PERFLAB_BENCH(sum, perflab::param("n", {10, 1000}),
//                   perflab::setup([](perflab::State& s) { data.assign(s.param_int("n"), 1); })) {
//         long total = 0;
//         for (int x : data) total += x;
//         perflab::do_not_optimize(total);
//     }
//     PERFLAB_BENCH(noop, perflab::baseline()) {}
//
// The body is ONE invocation; perflab calls it `invocations` times per timed iteration through a function
// pointer (the overhead stage calls an empty function of the same type in the same loop). Sink results with
// perflab::do_not_optimize(x) and use perflab::clobber_memory() to force pending stores.
//
// C (the header is also valid C; link with a C++ main that perflab generates):
//     #include "perflab.hpp"
//     static void bench_sum(void) { ... PERFLAB_DO_NOT_OPTIMIZE(total); }
//     PERFLAB_C_BENCH(bench_sum)            // or call perflab_register_c("sum", bench_sum) yourself
//
// Exactly one translation unit defines PERFLAB_MAIN before including this header: it gets main(), the C
// API's definitions and the allocation counters. perflab generates that file; see workers/cpp/README.md.
#ifndef PERFLAB_HPP_INCLUDED
#define PERFLAB_HPP_INCLUDED

#ifdef __cplusplus
extern "C" {
#endif
typedef void (*perflab_c_fn)(void);
/* Registers a C benchmark; returns 0. Use the perflab_register_c(name, fn) macro (it adds file:line). */
int perflab_register_c_at(const char* name, perflab_c_fn fn, const char* file, int line);
#define perflab_register_c(name, fn) perflab_register_c_at((name), (fn), __FILE__, __LINE__)
/* Registers `fn` under its own name before main() runs. */
#define PERFLAB_C_BENCH(fn) \
    __attribute__((constructor)) static void perflab_c_register_##fn(void) { perflab_register_c(#fn, fn); }
#define PERFLAB_DO_NOT_OPTIMIZE(x) __asm__ __volatile__("" : : "g"(x) : "memory")
#define PERFLAB_CLOBBER_MEMORY() __asm__ __volatile__("" : : : "memory")
#ifdef __cplusplus
}
#endif

#ifdef __cplusplus

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <exception>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

namespace perflab {

// ---------------------------------------------------------------------------------------------------
// Sinks
// ---------------------------------------------------------------------------------------------------

/// Makes the optimiser believe `value` is read (and, for an lvalue, possibly modified).
template <class T>
inline __attribute__((always_inline)) void do_not_optimize(T const& value) {
    asm volatile("" : : "r,m"(value) : "memory");
}
template <class T>
inline __attribute__((always_inline)) void do_not_optimize(T& value) {
    if constexpr (std::is_trivially_copyable<T>::value && sizeof(T) <= sizeof(void*) && !std::is_array<T>::value) {
#if defined(__clang__)
        asm volatile("" : "+r,m"(value) : : "memory");
#else
        asm volatile("" : "+m,r"(value) : : "memory");
#endif
    } else {
        // Arrays and objects wider than a register stay in memory: with "+m,r", GCC may pick a register
        // for an array and write garbage back into it (as Google Benchmark found).
        asm volatile("" : "+m"(value) : : "memory");
    }
}
/// Forces all pending memory writes to be considered visible.
inline __attribute__((always_inline)) void clobber_memory() { asm volatile("" : : : "memory"); }

// ---------------------------------------------------------------------------------------------------
// Registration
// ---------------------------------------------------------------------------------------------------

/// One case of a benchmark: its parameter values; `user` is free for the setup to use.
struct State {
    std::vector<std::string> names;
    std::vector<std::string> values;
    std::vector<long long> ints;  // values parsed as integers (0 if not numeric)
    void* user = nullptr;

    const std::string& param(const char* name) const {
        for (size_t i = 0; i < names.size(); ++i)
            if (names[i] == name) return values[i];
        throw std::out_of_range(std::string("perflab: no parameter '") + name + "'");
    }
    long long param_int(const char* name) const {
        for (size_t i = 0; i < names.size(); ++i)
            if (names[i] == name) return ints[i];
        throw std::out_of_range(std::string("perflab: no parameter '") + name + "'");
    }
    double param_double(const char* name) const { return std::strtod(param(name).c_str(), nullptr); }
    /// The i-th parameter value as an integer (Google Benchmark's state.range(i)); cheap enough for bodies.
    long long range(size_t i = 0) const { return ints.at(i); }
};

using BenchFn = void (*)(State&);

/// A benchmark that cannot run as written: its case fails with this one line (the message is shown as
/// it is, with `file`:`line` when they are known).
struct Failure : std::runtime_error {
    std::string file;
    int line;
    Failure(const std::string& message, std::string f = "", int l = 0) : std::runtime_error(message), file(std::move(f)), line(l) {}
};

/// A benchmark that times itself (a Google Benchmark function: it runs its own loop and its State's
/// timer says where the clocks run; see benchmark/benchmark.h). `run` performs one timed iteration of
/// `n` invocations and returns its wall and CPU nanoseconds; `overhead` asks for the empty loop.
struct SelfTimed {
    void* ctx = nullptr;
    void (*run)(void* ctx, State& st, uint64_t n, bool overhead, uint64_t* ns, uint64_t* cpu) = nullptr;
    void (*setup)(void* ctx, State& st) = nullptr;
    void (*teardown)(void* ctx, State& st) = nullptr;
    // extra fields of the `diagnostics` reply (",\"key\":value..."), given the measured seconds per op
    std::string (*diagnostics)(void* ctx, double seconds_per_op) = nullptr;
    uintptr_t code = 0;  // the benchmark function's address, for code size (0: unknown)
};

/// A value of a benchmark's `meta`: a string, an integer, a number or a boolean.
struct MetaValue {
    enum Kind { Str, Int, Float, Bool } kind = Str;
    std::string s;
    long long i = 0;
    double f = 0;
    bool b = false;
};

struct Def {
    std::string name, group, file, description;
    std::vector<std::pair<std::string, MetaValue>> meta;
    int line = 0;
    bool baseline = false;
    long long ops = 1;
    std::vector<std::pair<std::string, std::vector<std::string>>> params;
    std::vector<std::string> categories;
    BenchFn fn = nullptr;
    perflab_c_fn cfn = nullptr;
    SelfTimed self;
    std::string id_suffix;    // the id's part after "group." when it is not `name` (Google Benchmark's run name)
    std::string unsupported;  // why it cannot run (the API and its file:line): it fails alone at load
    bool one_invocation = false;  // one invocation per iteration (Google Benchmark's Iterations(n))
    std::function<void(State&)> setup, teardown, it_setup, it_teardown;
};

inline std::vector<Def>& registry() {
    static std::vector<Def> defs;
    return defs;
}

/// Functions that add to registry() once every static constructor has run (Google Benchmark's
/// registrations are chained calls: ->Arg(8)->Arg(64) completes after the object is registered).
inline std::vector<void (*)()>& late_registrars() {
    static std::vector<void (*)()> fns;
    return fns;
}

/// A file that did not compile or link: its benchmarks (found in its text) fail alone with `message`.
struct LoadError {
    std::string file, message, id, name, group;
    int line = 0;
};
inline std::vector<LoadError>& load_errors() {
    static std::vector<LoadError> errs;
    return errs;
}

/// The file whose own main() perflab's generated main is running (what it registers belongs to it).
inline const char*& current_main_file() {
    static const char* file = nullptr;
    return file;
}

/// Google Benchmark's RunSpecifiedBenchmarks() in a file with its own main(): serves the worker
/// protocol there (defined in the translation unit with PERFLAB_MAIN).
size_t run_from_user_main();

/// An option of PERFLAB_BENCH(name, options...).
struct Opt {
    std::function<void(Def&)> apply;
};

inline Opt param(const char* name, std::initializer_list<const char*> values) {
    std::vector<std::string> v(values.begin(), values.end());
    std::string n = name;
    return {[n, v](Def& d) { d.params.emplace_back(n, v); }};
}
inline Opt param(const char* name, std::initializer_list<long long> values) {
    std::vector<std::string> v;
    for (long long x : values) v.push_back(std::to_string(x));
    std::string n = name;
    return {[n, v](Def& d) { d.params.emplace_back(n, v); }};
}
inline Opt param(const char* name, std::vector<std::string> values) {
    std::string n = name;
    return {[n, values](Def& d) { d.params.emplace_back(n, values); }};
}
inline Opt baseline() { return {[](Def& d) { d.baseline = true; }}; }
inline Opt ops(long long n) { return {[n](Def& d) { d.ops = n < 1 ? 1 : n; }}; }
inline Opt category(const char* c) {
    std::string s = c;
    return {[s](Def& d) { d.categories.push_back(s); }};
}
inline Opt description(const char* c) {
    std::string s = c;
    return {[s](Def& d) { d.description = s; }};
}
inline Opt group(const char* c) {
    std::string s = c;
    return {[s](Def& d) { d.group = s; }};
}
/// The benchmark's name (and the last component of its id `group.name`) when it differs from the C++
/// identifier given to PERFLAB_BENCH, e.g. two benchmarks named "Write" in one file (give them
/// different groups so that their ids differ).
inline Opt name(const char* n) {
    std::string s = n;
    return {[s](Def& d) { d.name = s; }};
}
/// Free-form metadata copied into the results, e.g. meta("seed", "002"), meta("scenario", true),
/// meta("file_size", 10000000). A key given twice keeps its last value.
template <class T>
inline Opt meta(const char* key, const T& value) {
    MetaValue v;
    using U = std::decay_t<T>;
    if constexpr (std::is_same<U, bool>::value) {
        v.kind = MetaValue::Bool;
        v.b = value;
    } else if constexpr (std::is_integral<U>::value) {
        v.kind = MetaValue::Int;
        v.i = static_cast<long long>(value);
    } else if constexpr (std::is_floating_point<U>::value) {
        v.kind = MetaValue::Float;
        v.f = static_cast<double>(value);
    } else {
        static_assert(std::is_convertible<const T&, std::string>::value,
                      "perflab::meta: the value must be a string, an integer, a number or a bool");
        v.s = std::string(value);
    }
    std::string k = key;
    return {[k, v](Def& d) {
        for (auto& kv : d.meta)
            if (kv.first == k) {
                kv.second = v;
                return;
            }
        d.meta.emplace_back(k, v);
    }};
}
/// Runs once per case before timing (with the case's parameters), outside the timed region.
inline Opt setup(std::function<void(State&)> f) { return {[f](Def& d) { d.setup = f; }}; }
/// Runs once per case after timing.
inline Opt teardown(std::function<void(State&)> f) { return {[f](Def& d) { d.teardown = f; }}; }
/// Runs before every timed iteration (outside the timed region); the host then asks for one
/// invocation per iteration, so the body may consume what this prepares.
inline Opt iteration_setup(std::function<void(State&)> f) { return {[f](Def& d) { d.it_setup = f; }}; }
/// Runs after every timed iteration (outside the timed region).
inline Opt iteration_teardown(std::function<void(State&)> f) { return {[f](Def& d) { d.it_teardown = f; }}; }

namespace detail {
inline std::string stem_of(const std::string& file) {
    size_t slash = file.find_last_of('/');
    std::string base = slash == std::string::npos ? file : file.substr(slash + 1);
    size_t dot = base.find('.');
    return dot == std::string::npos ? base : base.substr(0, dot);
}
struct Registrar {
    template <class... O>
    Registrar(const char* name, const char* file, int line, BenchFn fn, O... opts) {
        Def d;
        d.name = name;
        d.file = file;
        d.line = line;
        d.fn = fn;
        (opts.apply(d), ...);
        if (d.group.empty()) d.group = stem_of(d.file);
        registry().push_back(std::move(d));
    }
};
}  // namespace detail

}  // namespace perflab

/// Defines and registers a benchmark whose body is one invocation; `state` (perflab::State&) is in scope.
#define PERFLAB_BENCH(name, ...)                                                                        \
    __attribute__((noinline)) static void perflab_bench_##name(::perflab::State& state);                 \
    static ::perflab::detail::Registrar perflab_registrar_##name(#name, __FILE__, __LINE__,              \
                                                                 &perflab_bench_##name, ##__VA_ARGS__); \
    __attribute__((noinline)) static void perflab_bench_##name([[maybe_unused]] ::perflab::State& state)

// ===================================================================================================
// The worker (only in the translation unit that defines PERFLAB_MAIN)
// ===================================================================================================
#ifdef PERFLAB_MAIN

extern "C" int perflab_register_c_at(const char* name, perflab_c_fn fn, const char* file, int line) {
    perflab::Def d;
    d.name = name;
    d.file = file;
    d.line = line;
    d.cfn = fn;
    d.group = perflab::detail::stem_of(d.file);
    perflab::registry().push_back(std::move(d));
    return 0;
}

// ---- allocation counting: malloc & co. are interposed (glibc), counting only during diagnose ------
namespace perflab { namespace detail {
inline std::atomic<bool> counting{false};
inline std::atomic<unsigned long long> alloc_bytes{0}, allocs{0};
}}  // namespace perflab::detail

#if defined(__GLIBC__) && !defined(PERFLAB_NO_ALLOC_COUNT)
#define PERFLAB_COUNTS_ALLOCS 1
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void __libc_free(void*);
void* malloc(size_t n) {
    if (perflab::detail::counting.load(std::memory_order_relaxed)) {
        perflab::detail::allocs.fetch_add(1, std::memory_order_relaxed);
        perflab::detail::alloc_bytes.fetch_add(n, std::memory_order_relaxed);
    }
    return __libc_malloc(n);
}
void* calloc(size_t a, size_t b) {
    if (perflab::detail::counting.load(std::memory_order_relaxed)) {
        perflab::detail::allocs.fetch_add(1, std::memory_order_relaxed);
        perflab::detail::alloc_bytes.fetch_add(a * b, std::memory_order_relaxed);
    }
    return __libc_calloc(a, b);
}
void* realloc(void* p, size_t n) {
    if (perflab::detail::counting.load(std::memory_order_relaxed)) {
        perflab::detail::allocs.fetch_add(1, std::memory_order_relaxed);
        perflab::detail::alloc_bytes.fetch_add(n, std::memory_order_relaxed);
    }
    return __libc_realloc(p, n);
}
void free(void* p) { __libc_free(p); }
}
#endif

extern "C" __attribute__((noinline)) void perflab_cpp_anchor(void) { asm volatile(""); }

// `perflab run --measure instructions` runs the worker under valgrind's callgrind with PERFLAB_COUNT=1:
// the timed loop of each `run` request then runs inside ONE call of this marker, and callgrind counts
// only inside it (--toggle-collect) and dumps as it returns (--dump-after). It must stay a real,
// unmangled, out-of-line function: noinline, GCC's noipa (no clone such as .constprop/.isra that
// callgrind would not match), `used`, and the asm after the call keeps it from being a tail call
// (a tail jump would leave the marker before the loop runs). Outside count mode it is never called.
#if defined(__GNUC__) && !defined(__clang__)
#define PERFLAB_MARKER_ATTRS noinline, noipa, used
#else
#define PERFLAB_MARKER_ATTRS noinline, used, optnone
#endif
extern "C" __attribute__((PERFLAB_MARKER_ATTRS)) void perflab_measured_region(void (*body)(void*), void* arg) {
    body(arg);
    asm volatile("" ::: "memory");
}

namespace perflab { namespace detail {
inline bool count_mode() {
    static const bool on = [] {
        const char* v = std::getenv("PERFLAB_COUNT");
        return v && std::strcmp(v, "1") == 0;
    }();
    return on;
}
}}  // namespace perflab::detail

namespace perflab {
namespace detail {

__attribute__((noinline)) inline void empty_cpp(State&) { asm volatile(""); }
extern "C" __attribute__((noinline)) inline void perflab_empty_c(void) { asm volatile(""); }

// ---- JSON ---------------------------------------------------------------------------------------
struct Json {
    enum Kind { Null, Bool, Int, Float, Str, Arr, Obj } kind = Null;
    bool b = false;
    long long i = 0;
    double f = 0;
    std::string s;
    std::vector<Json> arr;
    std::vector<std::pair<std::string, Json>> obj;
    const Json* get(const char* key) const {
        if (kind != Obj) return nullptr;
        for (auto& kv : obj)
            if (kv.first == key) return &kv.second;
        return nullptr;
    }
};

struct Parser {
    const std::string& t;
    size_t p = 0;
    int depth = 0;
    explicit Parser(const std::string& text) : t(text) {}
    [[noreturn]] void fail(const char* what) { throw std::runtime_error(std::string(what) + " at offset " + std::to_string(p)); }
    void ws() {
        while (p < t.size() && (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r')) ++p;
    }
    bool lit(const char* l) {
        size_t n = std::strlen(l);
        if (t.compare(p, n, l) == 0) {
            p += n;
            return true;
        }
        return false;
    }
    static void utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) out += char(cp);
        else if (cp < 0x800) { out += char(0xC0 | (cp >> 6)); out += char(0x80 | (cp & 0x3F)); }
        else if (cp < 0x10000) { out += char(0xE0 | (cp >> 12)); out += char(0x80 | ((cp >> 6) & 0x3F)); out += char(0x80 | (cp & 0x3F)); }
        else { out += char(0xF0 | (cp >> 18)); out += char(0x80 | ((cp >> 12) & 0x3F)); out += char(0x80 | ((cp >> 6) & 0x3F)); out += char(0x80 | (cp & 0x3F)); }
    }
    unsigned hex4() {
        if (p + 4 > t.size()) fail("short \\u escape");
        unsigned v = 0;
        for (int k = 0; k < 4; ++k) {
            char c = t[p++];
            v <<= 4;
            if (c >= '0' && c <= '9') v |= unsigned(c - '0');
            else if (c >= 'a' && c <= 'f') v |= unsigned(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') v |= unsigned(c - 'A' + 10);
            else fail("bad \\u escape");
        }
        return v;
    }
    std::string str() {
        ++p;
        std::string out;
        while (true) {
            if (p >= t.size()) fail("unterminated string");
            char c = t[p++];
            if (c == '"') return out;
            if ((unsigned char)c < 0x20) fail("raw control character in string");
            if (c != '\\') { out += c; continue; }
            if (p >= t.size()) fail("unterminated escape");
            char e = t[p++];
            switch (e) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned cp = hex4();
                    if (cp >= 0xD800 && cp < 0xDC00 && t.compare(p, 2, "\\u") == 0) {
                        p += 2;
                        unsigned lo = hex4();
                        cp = 0x10000 + ((cp - 0xD800) << 10) + ((lo - 0xDC00) & 0x3FF);
                    }
                    utf8(out, cp);
                    break;
                }
                default: fail("bad escape");
            }
        }
    }
    Json value() {
        if (++depth > 256) fail("nesting too deep");
        Json v;
        ws();
        if (p >= t.size()) fail("unexpected end of input");
        char c = t[p];
        if (c == 'n') { if (!lit("null")) fail("invalid literal"); }
        else if (c == 't') { if (!lit("true")) fail("invalid literal"); v.kind = Json::Bool; v.b = true; }
        else if (c == 'f') { if (!lit("false")) fail("invalid literal"); v.kind = Json::Bool; }
        else if (c == '"') { v.kind = Json::Str; v.s = str(); }
        else if (c == '[') {
            ++p; v.kind = Json::Arr; ws();
            if (p < t.size() && t[p] == ']') ++p;
            else while (true) {
                v.arr.push_back(value()); ws();
                if (p < t.size() && t[p] == ',') { ++p; continue; }
                if (p < t.size() && t[p] == ']') { ++p; break; }
                fail("expected ',' or ']'");
            }
        } else if (c == '{') {
            ++p; v.kind = Json::Obj; ws();
            if (p < t.size() && t[p] == '}') ++p;
            else while (true) {
                ws();
                if (p >= t.size() || t[p] != '"') fail("expected a key");
                std::string k = str(); ws();
                if (p >= t.size() || t[p] != ':') fail("expected ':'");
                ++p;
                Json x = value();
                v.obj.emplace_back(std::move(k), std::move(x)); ws();
                if (p < t.size() && t[p] == ',') { ++p; continue; }
                if (p < t.size() && t[p] == '}') { ++p; break; }
                fail("expected ',' or '}'");
            }
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            size_t start = p;
            bool isf = false;
            if (t[p] == '-') ++p;
            while (p < t.size()) {
                char d = t[p];
                if (d >= '0' && d <= '9') {}
                else if (d == '.' || d == 'e' || d == 'E' || d == '+' || d == '-') isf = true;
                else break;
                ++p;
            }
            std::string num = t.substr(start, p - start);
            char* end = nullptr;
            if (!isf) {
                errno = 0;
                long long x = std::strtoll(num.c_str(), &end, 10);
                if (*end == 0 && errno == 0 && num != "-") { v.kind = Json::Int; v.i = x; --depth; return v; }
            }
            double x = std::strtod(num.c_str(), &end);
            if (*end != 0 || num == "-") fail("invalid number");
            v.kind = Json::Float; v.f = x;
        } else fail("unexpected character");
        --depth;
        return v;
    }
    Json parse() {
        Json v = value();
        ws();
        if (p != t.size()) fail("trailing characters");
        return v;
    }
};

inline void esc(std::string& out, const std::string& s) {
    out += '"';
    for (unsigned char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else out += char(c);
        }
    }
    out += '"';
}
inline std::string q(const std::string& s) {
    std::string o;
    esc(o, s);
    return o;
}

// ---- code size: our own symbol table, read with nm (diagnose stage only) ------------------------
struct SymTable {
    bool ok = false;
    uintptr_t bias = 0;
    std::map<uintptr_t, unsigned long long> sizes;
    std::string exe;
};
inline SymTable& symtab() {
    static SymTable t;
    static bool loaded = false;
    if (loaded) return t;
    loaded = true;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return t;
    exe[n] = 0;
    t.exe = exe;
    const char* nm = std::getenv("PERFLAB_NM");
    std::string cmd = std::string(nm && *nm ? nm : "nm") + " -S --defined-only '" + exe + "' 2>/dev/null";
    FILE* f = popen(cmd.c_str(), "r");
    if (!f) return t;
    char line[8192];
    bool have_anchor = false;
    uintptr_t anchor = 0;
    while (std::fgets(line, sizeof line, f)) {
        char a[64], sz[64], ty[8], name[4096];
        if (std::sscanf(line, "%63s %63s %7s %4095s", a, sz, ty, name) == 4) {
            uintptr_t addr = std::strtoull(a, nullptr, 16);
            unsigned long long size = std::strtoull(sz, nullptr, 16);
            if (std::strcmp(name, "perflab_cpp_anchor") == 0) { anchor = addr; have_anchor = true; }
            if (ty[0] == 't' || ty[0] == 'T' || ty[0] == 'W' || ty[0] == 'w') t.sizes[addr] = size;
        }
    }
    pclose(f);
    if (have_anchor) {
        t.bias = reinterpret_cast<uintptr_t>(&perflab_cpp_anchor) - anchor;
        t.ok = true;
    }
    return t;
}
inline bool code_size(uintptr_t addr, unsigned long long& out) {
    SymTable& t = symtab();
    if (!t.ok) return false;
    auto it = t.sizes.find(addr - t.bias);
    if (it == t.sizes.end()) return false;
    out = it->second;
    return true;
}

// ---- timing -------------------------------------------------------------------------------------
inline uint64_t now_ns() {
    return (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch()).count();
}

// CPU time this thread has consumed (Linux: scheduler-accounted, nanoseconds).
inline uint64_t thread_cpu_ns() {
    timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// One iteration: wall nanoseconds, and the CPU nanoseconds the measuring thread got meanwhile (read
// just outside the wall-clock reads, so the timed region is unchanged).
struct Timing {
    uint64_t ns;
    uint64_t cpu;
};

__attribute__((noinline)) inline Timing time_cpp(BenchFn fn, State& s, uint64_t n) {
    BenchFn volatile vf = fn;  // opaque to the optimiser: the call cannot be inlined or hoisted
    BenchFn f = vf;
    uint64_t c0 = thread_cpu_ns();
    uint64_t t0 = now_ns();
    for (uint64_t i = 0; i < n; ++i) f(s);
    uint64_t t1 = now_ns();
    uint64_t c1 = thread_cpu_ns();
    return {t1 - t0, c1 - c0};
}
__attribute__((noinline)) inline Timing time_c(perflab_c_fn fn, uint64_t n) {
    perflab_c_fn volatile vf = fn;
    perflab_c_fn f = vf;
    uint64_t c0 = thread_cpu_ns();
    uint64_t t0 = now_ns();
    for (uint64_t i = 0; i < n; ++i) f();
    uint64_t t1 = now_ns();
    uint64_t c1 = thread_cpu_ns();
    return {t1 - t0, c1 - c0};
}

inline std::string demangle(const char* name) {
    int status = 0;
    char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    std::string out = (status == 0 && d) ? d : name;
    std::free(d);
    return out;
}

/// The current exception as "type: what()".
inline std::string describe_current_exception() {
    try {
        throw;
    } catch (const Failure& e) {
        return e.what();
    } catch (const std::exception& e) {
        return demangle(typeid(e).name()) + ": " + e.what();
    } catch (const std::string& s) {
        return "std::string: " + s;
    } catch (const char* s) {
        return std::string("const char*: ") + s;
    } catch (...) {
        std::type_info* ti = abi::__cxa_current_exception_type();
        return "exception of type " + (ti ? demangle(ti->name()) : std::string("unknown"));
    }
}

class Worker {
   public:
    explicit Worker(int fd) : fd_(fd) {}

    int serve() {
        for (auto fn : late_registrars()) fn();
        if (!hello()) return 2;
        std::string line;
        while (read_line(line)) {
            if (line.empty() || line.find_first_not_of(" \t\r") == std::string::npos) continue;
            if (!handle(line)) return 0;
        }
        return 0;
    }

   private:
    int fd_;
    std::string buf_;
    bool have_case_ = false;
    size_t case_def_ = 0;
    State state_;

    bool read_line(std::string& line) {
        while (true) {
            size_t nl = buf_.find('\n');
            if (nl != std::string::npos) {
                line = buf_.substr(0, nl);
                buf_.erase(0, nl + 1);
                if (!line.empty() && line.back() == '\r') line.pop_back();
                return true;
            }
            char chunk[65536];
            ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
            if (n <= 0) return false;
            buf_.append(chunk, size_t(n));
        }
    }
    bool send_line(const std::string& body) {
        std::string msg = "{\"v\":2," + body + "}\n";
        size_t off = 0;
        while (off < msg.size()) {
            ssize_t n = ::send(fd_, msg.data() + off, msg.size() - off, MSG_NOSIGNAL);
            if (n <= 0) return false;
            off += size_t(n);
        }
        return true;
    }
    static std::string id_text(const Json* id) {
        if (!id || id->kind == Json::Null) return "null";
        if (id->kind == Json::Int) return std::to_string(id->i);
        if (id->kind == Json::Str) return q(id->s);
        return "null";
    }
    bool reply(const std::string& id, const char* type, const std::string& rest = "") {
        return send_line("\"id\":" + id + ",\"type\":\"" + type + "\"" + (rest.empty() ? "" : "," + rest));
    }
    bool error(const std::string& id, const char* kind, const std::string& message, const std::string& extra = "") {
        return reply(id, "error", "\"error\":{\"kind\":\"" + std::string(kind) + "\",\"message\":" + q(message) + extra + "}");
    }
    bool exception_error(const std::string& id, const std::string& prefix, const Def& d) {
        std::string msg = prefix + describe_current_exception();
        std::string file = d.file;
        int line = d.line;
        try {
            throw;
        } catch (const Failure& f) {
            if (!f.file.empty()) file = f.file, line = f.line;
        } catch (...) {
        }
        return error(id, "exception", msg, ",\"file\":" + q(file) + ",\"line\":" + std::to_string(line));
    }

    bool hello() {
        char exe[4096];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = 0;
#if defined(__clang__)
        const char* comp = "clang";
#elif defined(__GNUC__)
        const char* comp = "gcc";
#else
        const char* comp = "c++";
#endif
        uint64_t best = ~0ull, cpu_best = ~0ull;
        for (int k = 0; k < 2000; ++k) {
            uint64_t a = now_ns(), b = now_ns();
            while (b == a) b = now_ns();
            if (b - a < best) best = b - a;
        }
        for (int k = 0; k < 20; ++k) {
            uint64_t a = thread_cpu_ns(), b = thread_cpu_ns();
            while (b == a) b = thread_cpu_ns();
            if (b - a < cpu_best) cpu_best = b - a;
        }
        const char* token = std::getenv("PERFLAB_TOKEN");
        std::string caps = "\"codesize\",\"with_overhead\",\"overhead_first\"";
#ifdef PERFLAB_COUNTS_ALLOCS
        caps = "\"alloc\",\"allocs\"," + caps;
#endif
        return send_line("\"type\":\"hello\",\"token\":" + q(token ? token : "") + ",\"language\":\"cpp\"," +
                         "\"runtime\":{\"name\":\"" + comp + "\",\"version\":" + q(__VERSION__) + ",\"executable\":" + q(exe) +
                         "},\"clock\":{\"resolution_ns\":" + std::to_string(best) +
                         ",\"source\":\"std::chrono::steady_clock\"}," +
                         "\"cpu_clock\":{\"source\":\"clock_gettime(CLOCK_THREAD_CPUTIME_ID)\",\"scope\":\"thread\"," +
                         "\"resolution_ns\":" + std::to_string(cpu_best) + "},\"capabilities\":[" + caps +
                         "],\"unroll\":1,\"pid\":" + std::to_string(getpid()));
    }

    bool handle(const std::string& line) {
        Json msg;
        try {
            msg = Parser(line).parse();
        } catch (const std::exception& e) {
            return error("null", "protocol", std::string("malformed request: ") + e.what());
        }
        if (msg.kind != Json::Obj) return error("null", "protocol", "malformed request: not a JSON object");
        std::string id = id_text(msg.get("id"));
        const Json* v = msg.get("v");
        if (!v || v->kind != Json::Int || v->i != 2) {
            error(id, "version", "this worker speaks protocol v2");
            return false;
        }
        const Json* type = msg.get("type");
        std::string t = type && type->kind == Json::Str ? type->s : "";
        if (t == "load") return on_load(id, msg);
        if (t == "setup") return on_setup(id, msg);
        if (t == "run") return on_run(id, msg);
        if (t == "teardown") return on_teardown(id);
        if (t == "bye") {
            reply(id, "done");
            return false;
        }
        return error(id, "protocol", "unknown request type " + q(t));
    }

    static std::string canon(const std::string& p) {
        char* r = ::realpath(p.c_str(), nullptr);
        if (!r) return p;
        std::string out = r;
        std::free(r);
        return out;
    }
    static std::string bench_id(const Def& d) { return d.group + "." + (d.id_suffix.empty() ? d.name : d.id_suffix); }
    static bool wanted_file(const std::vector<std::string>& wanted, const std::string& file) {
        std::string f = canon(file);
        bool ok = wanted.empty();
        for (auto& w : wanted)
            if (f == w || (f.size() > w.size() && f.compare(0, w.size(), w) == 0 && f[w.size()] == '/')) ok = true;
        return ok;
    }
    static std::string meta_json(const MetaValue& v) {
        switch (v.kind) {
            case MetaValue::Int: return std::to_string(v.i);
            case MetaValue::Bool: return v.b ? "true" : "false";
            case MetaValue::Float: {
                if (!(v.f == v.f) || v.f - v.f != 0) return "null";  // NaN or infinite: not JSON
                char buf[40];
                std::snprintf(buf, sizeof buf, "%.17g", v.f);
                std::string out = buf;
                if (out.find_first_of(".eE") == std::string::npos) out += ".0";
                return out;
            }
            default: return q(v.s);
        }
    }

    bool on_load(const std::string& id, const Json& msg) {
        const Json* paths = msg.get("paths");
        if (!paths || paths->kind != Json::Arr) return error(id, "protocol", "request 'load' lacks field 'paths'");
        std::vector<std::string> wanted;
        for (auto& p : paths->arr)
            if (p.kind == Json::Str) wanted.push_back(canon(p.s));
        std::string benches, errors;
        std::vector<std::string> seen;
        for (auto& e : load_errors()) {  // files that did not compile: each benchmark found in them fails alone
            if (!wanted_file(wanted, e.file)) continue;
            std::string who = e.id.empty() ? "" : ",\"benchmark\":{\"id\":" + q(e.id) + ",\"name\":" + q(e.name) + ",\"group\":" + q(e.group) + "}";
            errors += std::string(errors.empty() ? "" : ",") + "{\"file\":" + q(e.file) + ",\"line\":" + std::to_string(e.line) +
                      ",\"kind\":\"load\",\"message\":" + q(e.message) + who + "}";
        }
        for (auto& d : registry()) {
            if (!wanted_file(wanted, d.file)) continue;
            std::string bid = bench_id(d);
            std::string where = "\"file\":" + q(d.file) + ",\"line\":" + std::to_string(d.line) + ",\"kind\":\"load\",";
            if (!d.unsupported.empty()) {  // an API perflab cannot honour: this benchmark fails alone
                errors += std::string(errors.empty() ? "" : ",") + "{" + where + "\"message\":" + q(d.unsupported) +
                          ",\"benchmark\":{\"id\":" + q(bid) + ",\"name\":" + q(d.name) + ",\"group\":" + q(d.group) + "}}";
                continue;
            }
            bool dup = false;
            for (auto& s : seen) dup = dup || s == bid;
            if (dup) {
                errors += std::string(errors.empty() ? "" : ",") + "{" + where + "\"message\":" + q(bid + ": registered twice") + "}";
                continue;
            }
            seen.push_back(bid);
            std::string params;
            bool empty_axis = false;
            for (auto& ax : d.params) {
                if (ax.second.empty()) empty_axis = true;
                std::string vals;
                for (auto& v : ax.second) vals += (vals.empty() ? "" : ",") + q(v);
                params += std::string(params.empty() ? "" : ",") + "{\"name\":" + q(ax.first) + ",\"values\":[" + vals + "]}";
            }
            if (empty_axis) {
                errors += std::string(errors.empty() ? "" : ",") + "{" + where + "\"message\":" + q(bid + ": a parameter has an empty list of values") + "}";
                continue;
            }
            std::string cats;
            for (auto& c : d.categories) cats += (cats.empty() ? "" : ",") + q(c);
            std::string meta;
            for (auto& kv : d.meta) meta += (meta.empty() ? "" : ",") + q(kv.first) + ":" + meta_json(kv.second);
            benches += std::string(benches.empty() ? "" : ",") + "{\"id\":" + q(bid) + ",\"name\":" + q(d.name) +
                       ",\"group\":" + q(d.group) + ",\"file\":" + q(d.file) + ",\"line\":" + std::to_string(d.line) +
                       ",\"baseline\":" + (d.baseline ? "true" : "false") + ",\"categories\":[" + cats +
                       "],\"ops_per_invoke\":" + std::to_string(d.ops) + ",\"params\":[" + params +
                       "],\"description\":" + q(d.description) + ",\"iteration_setup\":" +
                       ((d.it_setup || d.it_teardown || d.one_invocation) ? "true" : "false") + ",\"meta\":{" + meta + "}}";
        }
        return reply(id, "loaded", "\"benchmarks\":[" + benches + "],\"errors\":[" + errors + "]");
    }

    bool finish_case(std::string& err_msg) {
        if (!have_case_) return true;
        have_case_ = false;
        Def& d = registry()[case_def_];
        if (d.teardown || d.self.teardown) {
            try {
                if (d.self.teardown) d.self.teardown(d.self.ctx, state_);
                if (d.teardown) d.teardown(state_);
            } catch (...) {
                err_msg = "teardown failed: " + describe_current_exception();
                return false;
            }
        }
        return true;
    }

    bool on_setup(const std::string& id, const Json& msg) {
        const Json* b = msg.get("benchmark");
        if (!b || b->kind != Json::Str) return error(id, "protocol", "request 'setup' lacks field 'benchmark'");
        auto& defs = registry();
        size_t di = defs.size();
        for (size_t i = 0; i < defs.size(); ++i)
            if (bench_id(defs[i]) == b->s) { di = i; break; }
        if (di == defs.size()) return error(id, "not_found", "no benchmark with id " + q(b->s));
        const Json* params = msg.get("params");
        State st;
        for (auto& ax : defs[di].params) {
            const Json* ix = params ? params->get(ax.first.c_str()) : nullptr;
            if (!ix || ix->kind != Json::Int) return error(id, "not_found", b->s + ": missing index for parameter '" + ax.first + "'");
            if (ix->i < 0 || size_t(ix->i) >= ax.second.size())
                return error(id, "not_found", b->s + ": parameter '" + ax.first + "' has no value #" + std::to_string(ix->i));
            const std::string& val = ax.second[size_t(ix->i)];
            st.names.push_back(ax.first);
            st.values.push_back(val);
            st.ints.push_back(std::strtoll(val.c_str(), nullptr, 10));
        }
        std::string ignored;
        finish_case(ignored);
        state_ = std::move(st);
        if (!defs[di].unsupported.empty()) return error(id, "exception", defs[di].unsupported);
        if (defs[di].setup || defs[di].self.setup) {
            try {
                if (defs[di].self.setup) defs[di].self.setup(defs[di].self.ctx, state_);
                if (defs[di].setup) defs[di].setup(state_);
            } catch (...) {
                return exception_error(id, "setup failed: ", defs[di]);
            }
        }
        have_case_ = true;
        case_def_ = di;
        return reply(id, "ready");
    }

    // One timed loop of n calls: the benchmark, or (overhead) the empty function of the same type.
    Timing time_loop(const Def& d, uint64_t n, bool overhead) {
        if (d.self.run) {  // the benchmark runs its own loop and says how long its timer ran
            Timing t{0, 0};
            d.self.run(d.self.ctx, state_, n, overhead, &t.ns, &t.cpu);
            return t;
        }
        return d.cfn ? time_c(overhead ? &perflab_empty_c : d.cfn, n)
                     : time_cpp(overhead ? &empty_cpp : d.fn, state_, n);
    }

    // One timed iteration, with the per-iteration hooks around it.
    Timing time_once(const Def& d, uint64_t n, bool overhead) {
        if (d.it_setup) {
            bool was = counting.exchange(false);  // hooks are neither timed nor counted
            d.it_setup(state_);
            counting = was;
        }
        Timing t = time_loop(d, n, overhead);
        if (d.it_teardown) {
            bool was = counting.exchange(false);
            d.it_teardown(state_);
            counting = was;
        }
        return t;
    }

    bool on_run(const std::string& id, const Json& msg) {
        if (!have_case_) return error(id, "state", "run before setup");
        const Json* stage = msg.get("stage");
        const Json* inv = msg.get("invocations");
        const Json* its = msg.get("iterations");
        if (!stage || stage->kind != Json::Str) return error(id, "protocol", "request 'run' lacks field 'stage'");
        if (!inv || inv->kind != Json::Int || !its || its->kind != Json::Int)
            return error(id, "protocol", "request 'run' needs integer 'invocations' and 'iterations'");
        if (inv->i < 1 || its->i < 1) return error(id, "protocol", "invocations and iterations must be >= 1");
        const std::string& s = stage->s;
        if (s != "pilot" && s != "warmup" && s != "overhead" && s != "workload" && s != "diagnose")
            return error(id, "protocol", "unknown stage " + q(s));
        // with_overhead: each workload iteration is followed by one overhead iteration (no hooks around it)
        const Json* wo = msg.get("with_overhead");
        bool with_overhead = wo && wo->kind == Json::Bool && wo->b;
        if (with_overhead && s != "workload") return error(id, "protocol", "with_overhead is for the workload stage only");
        // overhead_first: the overhead iteration before its workload one (the second of a request is
        // the one a loaded machine preempts; the host puts each side second alike)
        const Json* of = msg.get("overhead_first");
        bool overhead_first = with_overhead && of && of->kind == Json::Bool && of->b;
        const Def& d = registry()[case_def_];
        uint64_t n = uint64_t(inv->i);
        if (s == "diagnose") {
            alloc_bytes = 0;
            allocs = 0;
            counting = true;
            uint64_t diag_ns = 0;
            try {
                for (long long k = 0; k < its->i; ++k) diag_ns += time_once(d, n, false).ns;
            } catch (...) {
                counting = false;
                return exception_error(id, "", d);
            }
            counting = false;
            unsigned long long size = 0;
            uintptr_t addr = d.cfn ? reinterpret_cast<uintptr_t>(d.cfn) : d.fn ? reinterpret_cast<uintptr_t>(d.fn) : d.self.code;
            bool have_size = code_size(addr, size);
            std::string rest = "\"invocations\":" + std::to_string(inv->i) + ",\"iterations\":" + std::to_string(its->i);
            if (have_size) {  // where the function lives, so the host can disassemble it (--disasm)
                rest += ",\"code_address\":" + std::to_string(addr - symtab().bias) +
                        ",\"binary\":" + q(symtab().exe);
            }
#ifdef PERFLAB_COUNTS_ALLOCS
            rest += ",\"alloc_bytes\":" + std::to_string(alloc_bytes.load()) + ",\"allocs\":" + std::to_string(allocs.load());
#else
            rest += ",\"alloc_bytes\":null,\"allocs\":null";
#endif
            rest += ",\"gc\":null,\"code_size\":" + (have_size ? std::to_string(size) : std::string("null"));
            if (d.self.diagnostics) {  // throughput and counters (Google Benchmark's SetBytesProcessed & co.)
                double ops = double(n) * double(its->i) * double(d.ops);
                rest += d.self.diagnostics(d.self.ctx, ops > 0 ? double(diag_ns) / 1e9 / ops : 0.0);
            }
            rest += std::string(",\"notes\":[") + (have_size ? "\"code_size = bytes of the benchmark function's symbol\"" : "\"code size unavailable (nm missing or binary stripped)\"") + "]";
            return reply(id, "diagnostics", rest);
        }
        bool overhead = s == "overhead";
        // the timings are kept in vectors sized beforehand and formatted after the loop: the loop
        // itself does the same work whatever the times read (an instruction count must not depend on them)
        std::vector<Timing> work, empty;
        work.reserve(size_t(its->i));
        empty.reserve(with_overhead ? size_t(its->i) : 0);
        auto loop = [&]() {
            for (long long k = 0; k < its->i; ++k) {
                if (overhead_first) empty.push_back(time_loop(d, n, true));
                work.push_back(time_once(d, n, overhead));
                if (with_overhead && !overhead_first) empty.push_back(time_loop(d, n, true));
            }
        };
        try {
            if (count_mode()) {
                // the whole loop inside one call of the marker callgrind counts (see its comment);
                // called through a volatile pointer, so no optimiser knows the callee
                void (*volatile marker)(void (*)(void*), void*) = &perflab_measured_region;
                marker([](void* f) { (*static_cast<decltype(loop)*>(f))(); }, &loop);
            } else {
                loop();
            }
        } catch (...) {
            return exception_error(id, "", d);
        }
        std::string ns, cpu, over, over_cpu;
        for (size_t k = 0; k < work.size(); ++k) {
            const char* sep = k ? "," : "";
            ns += sep + std::to_string(work[k].ns);
            cpu += sep + std::to_string(work[k].cpu);
            if (with_overhead) {
                over += sep + std::to_string(empty[k].ns);
                over_cpu += sep + std::to_string(empty[k].cpu);
            }
        }
        std::string rest = "\"stage\":" + q(s) + ",\"invocations\":" + std::to_string(inv->i) + ",\"ns\":[" + ns +
                           "],\"cpu_ns\":[" + cpu + "]";
        if (with_overhead) rest += ",\"overhead_ns\":[" + over + "],\"overhead_cpu_ns\":[" + over_cpu + "]";
        return reply(id, "samples", rest);
    }

    bool on_teardown(const std::string& id) {
        std::string err_msg;
        if (!finish_case(err_msg)) return error(id, "exception", err_msg);
        return reply(id, "done");
    }
};

inline int run_main() {
    const char* addr = std::getenv("PERFLAB_CONNECT");
    if (!addr || !*addr) {
        std::fprintf(stderr, "perflab worker: PERFLAB_CONNECT is not set; this program is started by `perflab run`, not by hand\n"
                             "(%zu benchmarks registered)\n", registry().size());
        return 2;
    }
    std::string a = addr;
    size_t colon = a.rfind(':');
    if (colon == std::string::npos) {
        std::fprintf(stderr, "perflab worker: bad PERFLAB_CONNECT %s\n", addr);
        return 2;
    }
    std::string host = a.substr(0, colon), port = a.substr(colon + 1);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (getaddrinfo(host.c_str(), port.c_str(), &hints, &res) != 0 || !res) {
        std::fprintf(stderr, "perflab worker: cannot resolve %s\n", addr);
        return 2;
    }
    int fd = -1;
    for (addrinfo* r = res; r; r = r->ai_next) {
        fd = ::socket(r->ai_family, r->ai_socktype, r->ai_protocol);
        if (fd < 0) continue;
        if (::connect(fd, r->ai_addr, r->ai_addrlen) == 0) break;
        ::close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        std::fprintf(stderr, "perflab worker: cannot connect to %s\n", addr);
        return 2;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int rc = Worker(fd).serve();
    ::close(fd);
    return rc;
}

// Files with their own main() (Google Benchmark's `Initialize(); RunSpecifiedBenchmarks();`): perflab's
// generated main() calls each of them in turn (their `main` renamed); the last one's
// RunSpecifiedBenchmarks() serves the protocol, earlier ones only register (their call returns 0), and
// if none served by the time they have all returned, perflab's main serves.
inline int user_mains_left = 0;
inline bool served = false;
inline int served_rc = 0;
}  // namespace detail

size_t run_from_user_main() {
    if (detail::served || detail::user_mains_left > 1) return 0;
    detail::served = true;
    detail::served_rc = detail::run_main();
    return registry().size();
}
}  // namespace perflab

#ifndef PERFLAB_NO_MAIN_FUNCTION
int main() { return perflab::detail::run_main(); }
#endif

#endif  // PERFLAB_MAIN
#endif  // __cplusplus
#endif  // PERFLAB_HPP_INCLUDED
