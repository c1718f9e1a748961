// Parsing/Formatting experiments of seeds 003 (".NET Core 3.0": Parsing/Formatting) and 000
// (".NET 6": System Types), ported to C++17's <charconv>, <cstdio>, <ctime>/<iomanip> and std::to_string.
// C++17 has no Guid and no decimal type: a Guid is parsed/formatted with sscanf/snprintf into a 16-byte
// struct, and the decimal 12345.6789 is a double formatted with std::to_chars (shortest round trip).
#include "perflab.hpp"

#include <time.h>

#include <array>
#include <charconv>
#include <cstddef>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#define SEED_META(seed, section) perflab::meta("seed", seed), perflab::meta("section", section)
#define S003 "Parsing/Formatting"
#define S000 "System Types"

namespace {

struct Guid {
    uint32_t a;
    uint16_t b, c;
    uint8_t d[8];
};

std::string_view DEC = "12345678";
std::string_view HEXNUM = "BC614E";
std::string GUID_TEXT = "1f2e3d4c-5b6a-7988-0123-456789abcdef";
Guid GUID_VALUE = {0x1f2e3d4c, 0x5b6a, 0x7988, {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef}};
std::array<uint8_t, 16> GUID_BYTES;

// 2019-04-18 13:45:30.123456 UTC, as the Python port's _NOW.
std::tm NOW_TM = [] {
    std::tm t{};
    t.tm_year = 2019 - 1900;
    t.tm_mon = 3;
    t.tm_mday = 18;
    t.tm_hour = 13;
    t.tm_min = 45;
    t.tm_sec = 30;
    t.tm_wday = 4;
    return t;
}();
int NOW_MICROS = 123456;
std::string R_TEXT = "Thu, 18 Apr 2019 13:45:30 GMT";     // DateTime "r" (RFC 1123)
std::string O_TEXT = "2019-04-18T13:45:30.123456+00:00";  // the round-trip ISO 8601 form ("o")

// the seed's TimeSpan(3, 10, 2, 34, 567) ↔ std::chrono::milliseconds.
std::chrono::milliseconds TS = std::chrono::hours(3 * 24 + 10) + std::chrono::minutes(2) + std::chrono::seconds(34) +
                               std::chrono::milliseconds(567);
double DEC_VALUE = 12345.6789;
int DIGIT = 7;
std::array<int, 4> VERSION = {6, 1, 21412, 16};

Guid parse_guid(const std::string& s) {
    Guid g;
    unsigned a, b, c;
    unsigned d[8];
    if (s.size() != 36 ||
        std::sscanf(s.c_str(), "%8x-%4x-%4x-%2x%2x-%2x%2x%2x%2x%2x%2x", &a, &b, &c, &d[0], &d[1], &d[2], &d[3],
                    &d[4], &d[5], &d[6], &d[7]) != 11)
        throw std::invalid_argument("bad Guid " + s);
    g.a = a;
    g.b = uint16_t(b);
    g.c = uint16_t(c);
    for (int i = 0; i < 8; ++i) g.d[i] = uint8_t(d[i]);
    return g;
}

}  // namespace

// int.Parse("12345678") ↔ std::from_chars.
PERFLAB_BENCH(ParseInt32Dec, perflab::category("parsing_formatting"), SEED_META("003", S003),
              perflab::meta("fidelity", "faithful")) {
    std::string_view s = DEC;
    perflab::do_not_optimize(s);
    int32_t v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v);
    perflab::do_not_optimize(v);
}

// int.Parse("BC614E", NumberStyles.HexNumber) ↔ std::from_chars(…, 16).
PERFLAB_BENCH(ParseInt32Hex, perflab::category("parsing_formatting"), SEED_META("003", S003),
              perflab::meta("fidelity", "faithful")) {
    std::string_view s = HEXNUM;
    perflab::do_not_optimize(s);
    int32_t v = 0;
    std::from_chars(s.data(), s.data() + s.size(), v, 16);
    perflab::do_not_optimize(v);
}

// Guid.ParseExact(s, "D") ↔ std::sscanf of the 11 hex fields.
PERFLAB_BENCH(ParseGuid, perflab::category("parsing_formatting"), SEED_META("003", S003),
              perflab::meta("fidelity", "partial: C++ std has no Guid; std::sscanf of the 11 hex fields into the port's struct")) {
    Guid g = parse_guid(GUID_TEXT);
    perflab::do_not_optimize(g);
}

// Guid.ToString() ↔ std::snprintf("%08x-%04x-…") into a std::string.
PERFLAB_BENCH(GuidToString, perflab::category("parsing_formatting"), perflab::meta("extra", true), perflab::meta("related", "000 · System Types")) {
    const Guid& g = GUID_VALUE;
    perflab::do_not_optimize(g);
    char buf[37];
    std::snprintf(buf, sizeof buf, "%08" PRIx32 "-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", g.a, unsigned(g.b),
                  unsigned(g.c), g.d[0], g.d[1], g.d[2], g.d[3], g.d[4], g.d[5], g.d[6], g.d[7]);
    std::string s(buf, 36);
    perflab::do_not_optimize(s);
}

// guid.TryWriteBytes(buffer); guid = new Guid(buffer) ↔ std::memcpy both ways.
PERFLAB_BENCH(GuidToFromBytes, perflab::category("parsing_formatting"), SEED_META("003", S003),
              perflab::meta("fidelity", "partial: C++ std has no Guid; std::memcpy of the port's 16-byte struct into the reused buffer and back")) {
    std::memcpy(GUID_BYTES.data(), &GUID_VALUE, sizeof(Guid));
    perflab::clobber_memory();
    std::memcpy(&GUID_VALUE, GUID_BYTES.data(), sizeof(Guid));
    perflab::clobber_memory();
}

// DateTime.ParseExact(s, "r") ↔ std::get_time on a std::istringstream, then timegm.
PERFLAB_BENCH(ParseR, perflab::category("parsing_formatting"), SEED_META("003", S003),
              perflab::meta("fidelity", "partial: C++17 has no date parser; std::get_time + timegm (and from_chars for the fraction and offset) stand for DateTime.ParseExact")) {
    std::tm t{};
    std::istringstream in(R_TEXT);
    in >> std::get_time(&t, "%a, %d %b %Y %H:%M:%S GMT");
    if (in.fail()) throw std::invalid_argument("bad RFC 1123 date");
    auto tp = std::chrono::system_clock::from_time_t(timegm(&t));
    perflab::do_not_optimize(tp);
}

// DateTime.ParseExact(s, "o") ↔ std::get_time for the date and time, std::from_chars for the fraction
// and the offset.
PERFLAB_BENCH(ParseO, perflab::category("parsing_formatting"), perflab::category("quick"), SEED_META("003", S003),
              perflab::meta("fidelity", "partial: C++17 has no date parser; std::get_time + timegm (and from_chars for the fraction and offset) stand for DateTime.ParseExact")) {
    std::tm t{};
    std::istringstream in(O_TEXT);
    in >> std::get_time(&t, "%Y-%m-%dT%H:%M:%S");
    if (in.fail()) throw std::invalid_argument("bad ISO 8601 date");
    std::string_view rest = std::string_view(O_TEXT).substr(size_t(in.tellg()));
    long micros = 0;
    if (!rest.empty() && rest[0] == '.') {
        const char* p = rest.data() + 1;
        const char* end = rest.data() + rest.size();
        const char* stop = p;
        while (stop < end && *stop >= '0' && *stop <= '9') ++stop;
        std::from_chars(p, stop, micros);
        for (auto digits = stop - p; digits < 6; ++digits) micros *= 10;
        rest.remove_prefix(size_t(stop - rest.data()));
    }
    long offset_min = 0;
    if (!rest.empty() && (rest[0] == '+' || rest[0] == '-') && rest.size() == 6) {
        int hh = 0, mm = 0;
        std::from_chars(rest.data() + 1, rest.data() + 3, hh);
        std::from_chars(rest.data() + 4, rest.data() + 6, mm);
        offset_min = (rest[0] == '-' ? -1 : 1) * (hh * 60 + mm);
    } else if (rest != "Z") {
        throw std::invalid_argument("bad ISO 8601 offset");
    }
    auto tp = std::chrono::system_clock::from_time_t(timegm(&t)) + std::chrono::microseconds(micros) -
              std::chrono::minutes(offset_min);
    perflab::do_not_optimize(tp);
}

// DateTime.ToString() ↔ std::strftime("%Y-%m-%d %H:%M:%S") plus the microseconds, into a std::string.
PERFLAB_BENCH(DateTimeToString, perflab::category("parsing_formatting"), SEED_META("003", S003),
              perflab::meta("fidelity", "partial: C++17 has no date formatter beyond std::strftime; strftime + snprintf of the ISO form with microseconds; the seed's ToString() is the culture's \"G\" pattern (date and time to the second, no zone)")) {
    perflab::do_not_optimize(NOW_TM);
    char buf[64];
    size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &NOW_TM);
    n += size_t(std::snprintf(buf + n, sizeof buf - n, ".%06d+00:00", NOW_MICROS));
    std::string s(buf, n);
    perflab::do_not_optimize(s);
}

// TimeSpan.ToString() ("c": [d.]hh:mm:ss[.fffffff]) ↔ std::chrono arithmetic + std::snprintf.
PERFLAB_BENCH(TimeSpanToString, perflab::category("parsing_formatting"), SEED_META("003", S003),
              perflab::meta("fidelity", "partial: C++17 has no duration formatter; std::chrono arithmetic + std::snprintf of the seed's \"c\" form")) {
    using namespace std::chrono;
    milliseconds ts = TS;
    perflab::do_not_optimize(ts);
    auto d = duration_cast<hours>(ts).count() / 24;
    auto h = duration_cast<hours>(ts).count() % 24;
    auto m = duration_cast<minutes>(ts).count() % 60;
    auto s = duration_cast<seconds>(ts).count() % 60;
    auto frac = (ts.count() % 1000) * 10000;  // 100-ns ticks
    char buf[48];
    int n = d ? std::snprintf(buf, sizeof buf, "%lld.%02lld:%02lld:%02lld.%07lld", (long long)d, (long long)h,
                              (long long)m, (long long)s, (long long)frac)
              : std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld.%07lld", (long long)h, (long long)m,
                              (long long)s, (long long)frac);
    std::string out(buf, size_t(n));
    perflab::do_not_optimize(out);
}

// 12345.6789m.ToString() ↔ std::to_chars of the double 12345.6789 (shortest round trip; no decimal type).
PERFLAB_BENCH(DecimalToString, perflab::category("parsing_formatting"), SEED_META("003", S003),
              perflab::meta("fidelity", "partial: C++ has no decimal type; std::to_chars of the double 12345.6789 (shortest round trip)")) {
    double v = DEC_VALUE;
    perflab::do_not_optimize(v);
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, r.ptr);
    perflab::do_not_optimize(s);
}

// _digit.ToString() ↔ std::to_string.
PERFLAB_BENCH(SingleDigitToString, perflab::category("parsing_formatting"), SEED_META("003", S003),
              perflab::meta("fidelity", "faithful")) {
    int d = DIGIT;
    perflab::do_not_optimize(d);
    std::string s = std::to_string(d);
    perflab::do_not_optimize(s);
}

// new Version(6, 1, 21412, 16).ToString() ↔ std::to_chars of the four numbers joined by '.'.
PERFLAB_BENCH(VersionToString, perflab::category("parsing_formatting"), SEED_META("000", S000),
              perflab::meta("fidelity", "partial: C++ std has no version type; std::to_chars of the four numbers into a stack buffer, then a std::string")) {
    perflab::do_not_optimize(VERSION.data());
    perflab::clobber_memory();
    char buf[48];
    char* p = buf;
    for (size_t i = 0; i < VERSION.size(); ++i) {
        if (i) *p++ = '.';
        p = std::to_chars(p, buf + sizeof buf, VERSION[i]).ptr;
    }
    std::string s(buf, p);
    perflab::do_not_optimize(s);
}

// string.Format("{0} {1} {2} {3}", 'a', (Rune)'b', (nint)'c', (nuint)'d') → "a b 99 100" ↔ std::snprintf
// of two chars, a ptrdiff_t and a size_t (C++17 has no std::format).
PERFLAB_BENCH(Format, perflab::category("parsing_formatting"), SEED_META("000", S000),
              perflab::meta("fidelity", "partial: C++17 has no std::format; std::snprintf into a stack buffer, then a std::string")) {
    char a = 'a', b = 'b';
    std::ptrdiff_t c = 'c';
    std::size_t d = 'd';
    perflab::do_not_optimize(a);
    perflab::do_not_optimize(b);
    perflab::do_not_optimize(c);
    perflab::do_not_optimize(d);
    char buf[32];
    int n = std::snprintf(buf, sizeof buf, "%c %c %td %zu", a, b, c, d);
    std::string s(buf, size_t(n));
    perflab::do_not_optimize(s);
}
