// Arrays, Strings, Spans experiments of seeds 000 (".NET 6": Arrays, Strings, Spans) and 003
// (".NET Core 3.0": Span and Friends, Arrays and Strings), ported to std::string, std::string_view,
// std::array, std::vector and <algorithm>.
#include "perflab.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#define SEED_META(seed, section) perflab::meta("seed", seed), perflab::meta("section", section)
#define REPLACE_TEXT perflab::meta("fidelity", "partial: string.Replace on ~100 KB of generated CRLF text; the seed downloads the complete works of Mark Twain (no network here)")
#define S000 "Arrays, Strings, Spans"
#define S003 "Arrays and Strings"

namespace {

// The inputs go through do_not_optimize so that the compiler cannot fold the work into a constant.
std::string_view PERIOD_TEXT = "Let's see how fast we can find the period towards the end of this string. Pretty fast?";
std::string_view BYTES = "This is a test to see improvements to IndexOfAny. How'd they work?";
const std::array<std::string, 5> STRINGS = {"Hi", "How", "are", "you", "today"};

std::string s_text;                   // ~100 KB of CRLF text
std::vector<unsigned char> s_data;    // hex input
std::string s_hex;                    // hex text
std::vector<unsigned char> s_random64;  // ToHexString input
std::array<char16_t, 128> s_chars;    // .NET char[128]
std::array<int, 10> s_ints10;
std::array<int, 256> s_rev;
std::vector<unsigned char> s_orig, s_same, s_last;
std::string s_trim_data;
std::array<char, 1024> s_upper;       // the seed's reused char[1024]

constexpr char HEX[] = "0123456789ABCDEF";

}  // namespace

// string.IndexOf('.') ↔ std::string_view::find('.').
PERFLAB_BENCH(IndexOf, perflab::category("arrays_strings"), perflab::category("quick"), SEED_META("003", S003),
              perflab::meta("fidelity", "faithful")) {
    std::string_view s = PERIOD_TEXT;
    perflab::do_not_optimize(s);
    perflab::do_not_optimize(s.find('.'));
}

// Span<byte>.IndexOfAny('.', '?') ↔ std::string_view::find_first_of(".?").
PERFLAB_BENCH(IndexOfAny, perflab::category("arrays_strings"), SEED_META("003", "Span and Friends"),
              perflab::meta("seed_method", "IndexOf"),  // the seed's IndexOf calls IndexOfAny
              perflab::meta("fidelity", "faithful")) {
    std::string_view s = BYTES;
    perflab::do_not_optimize(s);
    perflab::do_not_optimize(s.find_first_of(".?"));
}

// string.Join(", ", 5 strings) ↔ reserve + append (C++17 has no join).
PERFLAB_BENCH(Join, perflab::category("arrays_strings"), SEED_META("000", S000),
              perflab::meta("fidelity", "partial: C++17 has no string join; reserve + append stands for string.Join")) {
    size_t n = 2 * (STRINGS.size() - 1);
    for (const auto& s : STRINGS) n += s.size();
    std::string out;
    out.reserve(n);
    for (size_t i = 0; i < STRINGS.size(); ++i) {
        if (i) out += ", ";
        out += STRINGS[i];
    }
    perflab::do_not_optimize(out);
}

// string.Replace on a ~100 KB text (seed: a downloaded book; here generated prose with CRLF).
#define TEXT_FIXTURE perflab::setup([](perflab::State&) {                                                          \
    s_text.clear();                                                                                              \
    for (int i = 0; i < 1200; ++i)                                                                               \
        s_text += "The quick brown fox jumps over the lazy dog. Pack my box with five dozen jugs.\r\n";         \
})

// Replace('.', '!') ↔ a copy, then std::replace.
PERFLAB_BENCH(Yell, perflab::category("arrays_strings"), SEED_META("000", S000), TEXT_FIXTURE, REPLACE_TEXT) {
    std::string out = s_text;
    std::replace(out.begin(), out.end(), '.', '!');
    perflab::do_not_optimize(out);
}

// Replace("\n", "") ↔ a copy without '\n' (std::remove_copy).
PERFLAB_BENCH(ConcatLines, perflab::category("arrays_strings"), SEED_META("000", S000), TEXT_FIXTURE, REPLACE_TEXT) {
    std::string out;
    out.reserve(s_text.size());
    std::remove_copy(s_text.begin(), s_text.end(), std::back_inserter(out), '\n');
    perflab::do_not_optimize(out);
}

// Replace("\r\n", "\n") ↔ find + append of each piece.
PERFLAB_BENCH(NormalizeEndings, perflab::category("arrays_strings"), SEED_META("000", S000), TEXT_FIXTURE, REPLACE_TEXT) {
    std::string_view in = s_text;
    std::string out;
    out.reserve(in.size());
    size_t pos = 0;
    for (size_t hit; (hit = in.find("\r\n", pos)) != std::string_view::npos; pos = hit + 2) {
        out.append(in.substr(pos, hit - pos));
        out += '\n';
    }
    out.append(in.substr(pos));
    perflab::do_not_optimize(out);
}

#define HEX_FIXTURE perflab::param("length", {100, 10000}), perflab::setup([](perflab::State& s) { \
    s_data.resize(size_t(s.range(0)));                                                                \
    for (size_t i = 0; i < s_data.size(); ++i) s_data[i] = (unsigned char)(i & 0xFF);               \
    s_hex.clear();                                                                                    \
    for (unsigned char b : s_data) { s_hex += HEX[b >> 4]; s_hex += HEX[b & 15]; }                   \
})

// Convert.ToHexString(64 random bytes: the seed's GlobalSetup fills them from RandomNumberGenerator) ↔ a
// table-driven loop (C++17 has no hex codec).
PERFLAB_BENCH(ToHexString, perflab::category("arrays_strings"), SEED_META("000", S000),
              perflab::meta("fidelity", "partial: C++ std has no hex codec; a 16-entry table loop stands for "
                                        "Convert.ToHexString"),
              perflab::setup([](perflab::State&) {
                  std::random_device rng;
                  s_random64.resize(64);
                  for (unsigned char& b : s_random64) b = (unsigned char)rng();
              })) {
    std::string out(s_random64.size() * 2, '\0');
    char* p = out.data();
    for (unsigned char b : s_random64) {
        *p++ = HEX[b >> 4];
        *p++ = HEX[b & 15];
    }
    perflab::do_not_optimize(out);
}

// Not a method of the seed: the reverse conversion, std::from_chars(…, 16) on every pair of digits.
PERFLAB_BENCH(FromHexString, perflab::category("arrays_strings"), perflab::meta("extra", true),
              perflab::meta("related", "000 · " S000), HEX_FIXTURE) {
    std::vector<unsigned char> out(s_hex.size() / 2);
    const char* p = s_hex.data();
    for (size_t i = 0; i < out.size(); ++i, p += 2) std::from_chars(p, p + 2, out[i], 16);
    perflab::do_not_optimize(out.data());
    perflab::clobber_memory();
}

// Array.Fill(char[128], 'c') ↔ std::array::fill.
PERFLAB_BENCH(ArrayFill, perflab::category("arrays_strings"), SEED_META("000", S000), perflab::meta("fidelity", "faithful")) {
    s_chars.fill(u'c');
    perflab::clobber_memory();
}

// Span<char>.Fill('c') ↔ std::fill_n through a pointer + length view of the same 128 chars.
PERFLAB_BENCH(SpanFill, perflab::category("arrays_strings"), SEED_META("000", S000), perflab::meta("fidelity", "faithful")) {
    char16_t* p = s_chars.data();
    size_t n = s_chars.size();
    perflab::do_not_optimize(p);
    std::fill_n(p, n, u'c');
    perflab::clobber_memory();
}

// Array.Clear(int[10]) ↔ std::fill_n with zeros.
PERFLAB_BENCH(Clear, perflab::category("arrays_strings"), SEED_META("000", S000), perflab::meta("seed_method", "New"),
              perflab::meta("fidelity", "faithful")) {  // the seed's New: Array.Clear(array)
    std::fill_n(s_ints10.data(), s_ints10.size(), 0);
    perflab::clobber_memory();
}

// Array.Reverse(int[256]) ↔ std::reverse.
PERFLAB_BENCH(Reverse, perflab::category("arrays_strings"), SEED_META("003", S003), perflab::meta("fidelity", "faithful"),
              perflab::setup([](perflab::State&) {
                  for (int i = 0; i < 256; ++i) s_rev[size_t(i)] = i;
              })) {
    std::reverse(s_rev.begin(), s_rev.end());
    perflab::clobber_memory();
}

#define COMPARE_FIXTURE perflab::param("Length", {16, 256}), perflab::setup([](perflab::State& s) { \
    s_orig.resize(size_t(s.range(0)));                                                                \
    for (size_t i = 0; i < s_orig.size(); ++i) s_orig[i] = (unsigned char)i;                         \
    s_same = s_orig;                                                                                  \
    s_last = s_orig;                                                                                  \
    s_last.back() = (unsigned char)(s_last.back() + 1);                                               \
})

// Span<byte>.SequenceCompareTo ↔ std::memcmp over the common length, then the lengths: an int order,
// as the seed's (vector == or < would answer a different question).
static int sequence_compare_to(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) {
    int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
    return c != 0 ? c : int(a.size()) - int(b.size());
}

PERFLAB_BENCH(CompareSame, perflab::category("arrays_strings"), SEED_META("003", "Span and Friends"),
              perflab::meta("fidelity", "faithful"), COMPARE_FIXTURE) {
    perflab::do_not_optimize(s_orig);
    perflab::do_not_optimize(sequence_compare_to(s_orig, s_same));
}

PERFLAB_BENCH(CompareDifferLast, perflab::category("arrays_strings"), SEED_META("003", "Span and Friends"),
              perflab::meta("fidelity", "faithful"), COMPARE_FIXTURE) {
    perflab::do_not_optimize(s_orig);
    perflab::do_not_optimize(sequence_compare_to(s_orig, s_last));
}

// string.Equals(…, OrdinalIgnoreCase) ↔ std::equal with a tolower predicate.
PERFLAB_BENCH(EqualsIC, perflab::category("arrays_strings"), SEED_META("003", S003),
              perflab::meta("fidelity", "partial: C++ std has no case-insensitive compare; std::equal with std::tolower per char")) {
    std::string_view a = "Some string", b = "sOME sTrinG";
    perflab::do_not_optimize(a);
    perflab::do_not_optimize(b);
    bool eq = std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        return std::tolower((unsigned char)x) == std::tolower((unsigned char)y);
    });
    perflab::do_not_optimize(eq);
}

// span.ToUpperInvariant(char[1024]) ↔ std::transform with std::toupper (the "C" locale) into the reused buffer.
PERFLAB_BENCH(ToUpperInvariant, perflab::category("arrays_strings"), SEED_META("003", "Span and Friends"),
              perflab::meta("fidelity", "partial: C++ std has no string case mapping; std::transform with std::toupper per char into the reused buffer")) {
    std::string_view src = "This is a source string that needs to be capitalized.";
    perflab::do_not_optimize(src);
    auto end = std::transform(src.begin(), src.end(), s_upper.begin(), [](char c) { return char(std::toupper((unsigned char)c)); });
    perflab::do_not_optimize(end - s_upper.begin());
    perflab::clobber_memory();
}

// span.Trim() ↔ find_first_not_of/find_last_not_of on a std::string_view: a view, nothing copied.
PERFLAB_BENCH(Trim, perflab::param("Data", {"", " abcdefg ", "abcdefg"}), perflab::category("arrays_strings"),
              SEED_META("003", "Span and Friends"), perflab::meta("fidelity", "faithful"),
              perflab::setup([](perflab::State& s) { s_trim_data = s.param("Data"); })) {
    std::string_view d = s_trim_data;
    perflab::do_not_optimize(d);
    constexpr std::string_view WS = " \t\n\v\f\r";
    size_t first = d.find_first_not_of(WS);
    std::string_view out = first == std::string_view::npos ? std::string_view() : d.substr(first, d.find_last_not_of(WS) - first + 1);
    perflab::do_not_optimize(out);
}
