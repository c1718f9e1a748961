package parsingformatting

// Parsing/Formatting experiments of seeds 003 and 000. Int32.Parse ↔ strconv.ParseInt(…, 32),
// DateTime.ParseExact "r" (RFC 1123) ↔ time.Parse(time.RFC1123, …), "o" (round-trip ISO 8601) ↔
// time.Parse(time.RFC3339Nano, …), DateTime/TimeSpan.ToString ↔ time.Time/time.Duration String,
// string.Format ↔ fmt.Sprintf. Guid and decimal are not in Go's standard library: left out.

import (
	"fmt"
	"strconv"
	"time"

	"perflab.dev/go/perflab"
)

const (
	s003 = "Parsing/Formatting"
	s000 = "System Types"
)

func meta(seed, section string) perflab.Option { return perflab.Meta("seed", seed, "section", section) }

var parsing = perflab.Categories("parsing_formatting")

// span: the seed's TimeSpan(3, 10, 2, 34, 567), 3 days and 10 hours being 82 hours.
var (
	dec, hexText = "12345678", "BC614E"
	now          = time.Date(2019, 4, 18, 13, 45, 30, 123456000, time.UTC)
	textR        = now.Format("Mon, 02 Jan 2006 15:04:05 GMT") // .NET's "r": Thu, 18 Apr 2019 13:45:30 GMT
	textO        = "2019-04-18T13:45:30.1234560Z"              // .NET's "o" of that UTC DateTime
	span         = 82*time.Hour + 2*time.Minute + 34*time.Second + 567*time.Millisecond
	digit        = 7
	version      = [4]int{6, 1, 21412, 16}
	// The seed's string.Format arguments: 'a', (Rune)'b', (nint)'c', (nuint)'d' → "a b 99 100"; boxed into
	// interfaces in the call, as .NET boxes them into objects.
	fmtA, fmtB = 'a', 'b'
	fmtC, fmtD = int('c'), uint('d')
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func init() {
	perflab.Func("ParseInt32Dec", func() int64 { return must(strconv.ParseInt(dec, 10, 32)) },
		parsing, meta("003", s003), perflab.Meta("fidelity", "faithful"), perflab.Description("int.Parse(\"12345678\") ↔ strconv.ParseInt(s, 10, 32)"))
	perflab.Func("ParseInt32Hex", func() int64 { return must(strconv.ParseInt(hexText, 16, 32)) },
		parsing, meta("003", s003), perflab.Meta("fidelity", "faithful"), perflab.Description("int.Parse(\"BC614E\", HexNumber) ↔ strconv.ParseInt(s, 16, 32)"))
	perflab.Func("ParseR", func() time.Time { return must(time.Parse(time.RFC1123, textR)) },
		parsing, meta("003", s003), perflab.Meta("fidelity", "faithful"),
		perflab.Description("DateTime.ParseExact(s, \"r\") ↔ time.Parse(time.RFC1123, s)"))
	perflab.Func("ParseO", func() time.Time { return must(time.Parse(time.RFC3339Nano, textO)) },
		perflab.Categories("parsing_formatting", "quick"), meta("003", s003), perflab.Meta("fidelity", "faithful"),
		perflab.Description("DateTime.ParseExact(s, \"o\") ↔ time.Parse(time.RFC3339Nano, s)"))
	perflab.Func("DateTimeToString", func() string { return now.String() },
		parsing, meta("003", s003),
		perflab.Meta("fidelity", "partial: time.Time.String() is Go's fixed form with fraction and zone; the seed's ToString() is the culture's \"G\" pattern (date and time to the second, no zone)"),
		perflab.Description("DateTime.ToString() ↔ time.Time.String()"))
	perflab.Func("TimeSpanToString", func() string { return span.String() },
		parsing, meta("003", s003),
		perflab.Meta("fidelity", "partial: time.Duration.String() (\"82h2m34.567s\"); the seed's ToString() is the \"c\" form 3.10:02:34.5670000"),
		perflab.Description("TimeSpan.ToString() ↔ time.Duration.String()"))
	perflab.Func("SingleDigitToString", func() string { return strconv.Itoa(digit) },
		parsing, meta("003", s003), perflab.Meta("fidelity", "faithful"), perflab.Description("7.ToString() ↔ strconv.Itoa(7)"))
	perflab.Func("VersionToString", func() string {
		var buf [32]byte
		b := strconv.AppendInt(buf[:0], int64(version[0]), 10)
		for _, v := range version[1:] {
			b = append(b, '.')
			b = strconv.AppendInt(b, int64(v), 10)
		}
		return string(b)
	}, parsing, meta("000", s000),
		perflab.Meta("fidelity", "partial: no Version type in Go's std; the four numbers appended with strconv.AppendInt into a stack buffer"),
		perflab.Description("Version(6, 1, 21412, 16).ToString() ↔ strconv.AppendInt into a stack buffer"))
	perflab.Func("Format", func() string { return fmt.Sprintf("%c %c %d %d", fmtA, fmtB, fmtC, fmtD) },
		parsing, meta("000", s000), perflab.Meta("fidelity", "faithful"),
		perflab.Description("string.Format(\"{0} {1} {2} {3}\", 'a', (Rune)'b', (nint)'c', (nuint)'d') ↔ fmt.Sprintf(\"%c %c %d %d\", …)"))
}
