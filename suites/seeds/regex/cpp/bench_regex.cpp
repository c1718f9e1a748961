// Seed 003 (".NET Core 3.0": Regular Expressions), ported to C++17's <regex>: the e-mail address pattern
// of .NET's EmailAddressAttribute, matched against one address with std::regex_search (IsMatch).
// The pattern has \uXXXX ranges up to \uFFEF, so it is a std::wregex over std::wstring (UTF-32 on Linux),
// as .NET matches UTF-16 strings. RegexOptions: IgnoreCase ↔ icase, ExplicitCapture ↔ nosubs,
// Compiled ↔ optimize ("make matching faster, possibly at the cost of construction" — a hint that an
// implementation may ignore). RegexInterpreted is the same regex without `optimize`.
#include "perflab.hpp"

#include <regex>
#include <stdexcept>
#include <string>

namespace {

// Copied verbatim from the seed (a C# verbatim string: backslashes are literal, as in a raw string).
const wchar_t* EMAIL_PATTERN =
    LR"(^((([a-z]|\d|[!#\$%&'\*\+\-\/=\?\^_`{\|}~]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])+(\.([a-z]|\d|[!#\$%&'\*\+\-\/=\?\^_`{\|}~]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])+)*)|((\x22)((((\x20|\x09)*(\x0d\x0a))?(\x20|\x09)+)?(([\x01-\x08\x0b\x0c\x0e-\x1f\x7f]|\x21|[\x23-\x5b]|[\x5d-\x7e]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])|(\\([\x01-\x09\x0b\x0c\x0d-\x7f]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF]))))*(((\x20|\x09)*(\x0d\x0a))?(\x20|\x09)+)?(\x22)))@((([a-z]|\d|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])|(([a-z]|\d|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])([a-z]|\d|-|\.|_|~|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])*([a-z]|\d|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])))\.)+(([a-z]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])|(([a-z]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])([a-z]|\d|-|\.|_|~|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])*([a-z]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])))\.?$)";
const std::wstring ADDRESS = L"someAddress@someCompany.com";

std::wregex* s_regex = nullptr;

void setup_with(std::regex_constants::syntax_option_type flags) {
    delete s_regex;
    s_regex = new std::wregex(EMAIL_PATTERN, flags);
    if (!std::regex_search(ADDRESS, *s_regex)) throw std::logic_error("the e-mail pattern does not match the address");
}
void teardown(perflab::State&) {
    delete s_regex;
    s_regex = nullptr;
}

constexpr auto BASE = std::regex_constants::ECMAScript | std::regex_constants::icase | std::regex_constants::nosubs;

}  // namespace

// IsMatch on the pattern built once with icase | nosubs | optimize.
PERFLAB_BENCH(RegexCompiled, perflab::category("regex"), perflab::category("quick"), perflab::meta("seed", "003"),
              perflab::meta("section", "Regular Expressions"), perflab::meta("fidelity", "faithful"),
              perflab::setup([](perflab::State&) { setup_with(BASE | std::regex_constants::optimize); }),
              perflab::teardown(teardown)) {
    bool m = std::regex_search(ADDRESS, *s_regex);
    perflab::do_not_optimize(m);
}

// IsMatch on the pattern built once with icase | nosubs (no `optimize`).
// (Not a method of the seed: an extra.)
PERFLAB_BENCH(RegexInterpreted, perflab::category("regex"), perflab::meta("extra", true), perflab::meta("related", "003 · Regular Expressions"),
              perflab::setup([](perflab::State&) { setup_with(BASE); }), perflab::teardown(teardown)) {
    bool m = std::regex_search(ADDRESS, *s_regex);
    perflab::do_not_optimize(m);
}
