package regex

// Seed 003 (".NET Core 3.0": Regular Expressions), ported to Go's regexp: the e-mail address pattern
// of .NET's EmailAddressAttribute, matched against one address. Go's regexp (RE2 syntax) spells the
// seed's \uXXXX escapes \x{XXXX}; nothing else in the pattern changes. RegexOptions.IgnoreCase ↔
// (?i). Go compiles every regexp to its own automaton (there is no interpreted/compiled choice), and
// ExplicitCapture only changes which groups capture, which IsMatch does not look at.

import (
	"regexp"
	"strings"

	"perflab.dev/go/perflab"
)

// seedPattern is the seed's pattern verbatim (a C# verbatim string: backslashes are literal).
const seedPattern = `^((([a-z]|\d|[!#\$%&'\*\+\-\/=\?\^_` + "`" + `{\|}~]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])+(\.([a-z]|\d|[!#\$%&'\*\+\-\/=\?\^_` + "`" + `{\|}~]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])+)*)|((\x22)((((\x20|\x09)*(\x0d\x0a))?(\x20|\x09)+)?(([\x01-\x08\x0b\x0c\x0e-\x1f\x7f]|\x21|[\x23-\x5b]|[\x5d-\x7e]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])|(\\([\x01-\x09\x0b\x0c\x0d-\x7f]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF]))))*(((\x20|\x09)*(\x0d\x0a))?(\x20|\x09)+)?(\x22)))@((([a-z]|\d|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])|(([a-z]|\d|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])([a-z]|\d|-|\.|_|~|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])*([a-z]|\d|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])))\.)+(([a-z]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])|(([a-z]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])([a-z]|\d|-|\.|_|~|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])*([a-z]|[\u00A0-\uD7FF\uF900-\uFDCF\uFDF0-\uFFEF])))\.?$`

// emailPattern is seedPattern in RE2 syntax (\uXXXX → \x{XXXX}).
var emailPattern = "(?i)" + unicodeEscapes.ReplaceAllString(seedPattern, `\x{$1}`)

var unicodeEscapes = regexp.MustCompile(`\\u([0-9A-Fa-f]{4})`)

var (
	email   = regexp.MustCompile(emailPattern)
	address = "someAddress@someCompany.com"
)

func meta() perflab.Option { return perflab.Meta("seed", "003", "section", "Regular Expressions") }

func init() {
	if !email.MatchString(address) || email.MatchString(strings.Replace(address, "@", "", 1)) {
		panic("the e-mail pattern does not behave as the seed's")
	}
	perflab.Func("RegexCompiled", func() bool { return email.MatchString(address) },
		perflab.Categories("regex", "quick"), meta(), perflab.Meta("fidelity", "faithful"),
		perflab.Description("IsMatch on the regexp compiled once (regexp.MustCompile)"))
	perflab.Func("RegexInterpreted", func() bool {
		ok, err := regexp.MatchString(emailPattern, address)
		if err != nil {
			panic(err)
		}
		return ok
	}, perflab.Categories("regex"), perflab.Meta("extra", "true", "related", "003 · Regular Expressions"),
		perflab.Description("Not a seed method: the static one-shot form, regexp.MatchString: Go keeps no cache, so every call compiles the pattern"))
}
