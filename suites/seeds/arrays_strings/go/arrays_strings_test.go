package arraysstrings

// Arrays, Strings, Spans experiments of seeds 000 and 003. A .NET string ↔ a Go string, byte[] and
// Span<byte> ↔ []byte, char[] ↔ []uint16 (a .NET char is a UTF-16 code unit), int[] ↔ []int.

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"

	"perflab.dev/go/perflab"
)

const (
	s000 = "Arrays, Strings, Spans"
	s003 = "Arrays and Strings"
	span = "Span and Friends"
)

func meta(seed, section string) perflab.Option { return perflab.Meta("seed", seed, "section", section) }

var arraysStrings = perflab.Categories("arrays_strings")

var (
	periodText = "Let's see how fast we can find the period towards the end of this string. Pretty fast?"
	anyBytes   = []byte("This is a test to see improvements to IndexOfAny. How'd they work?")
	joinParts  = []string{"Hi", "How", "are", "you", "today"}
	chars      [128]uint16 // the seed's char[128]
	c          uint16      = 'c'
	ints10                 = make([]int32, 10) // the seed's int[10]
	rev                    = func() []int {
		s := make([]int, 256)
		for i := range s {
			s[i] = i
		}
		return s
	}()
	icLeft, icRight = "Some string", "sOME sTrinG"
	upperSource     = "This is a source string that needs to be capitalized."
)

// replaceText: string.Replace on ~100 KB of CRLF text (the seed downloads a book: no network here).
const replaceText100KB = "partial: string.Replace on ~100 KB of generated CRLF text; the seed downloads the complete works of Mark Twain (no network here)"

var replaceText = strings.Repeat("The quick brown fox jumps over the lazy dog. Pack my box with five dozen jugs.\r\n", 1200)

// hexData: the seed's GlobalSetup, RandomNumberGenerator.Fill(new byte[64]).
var hexData = func() []byte {
	b := make([]byte, 64)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return b
}()

// hexBench: the reverse conversion (an extra, not a seed method) over `length` bytes.
func hexBench(p map[string]string) func(int) {
	length, err := strconv.Atoi(p["length"])
	if err != nil {
		panic(err)
	}
	data := make([]byte, length)
	for i := range data {
		data[i] = byte(i)
	}
	text := hex.EncodeToString(data)
	return func(n int) {
		var b []byte
		for i := 0; i < n; i++ {
			b, err = hex.DecodeString(text)
			if err != nil {
				panic(err)
			}
		}
		perflab.Sink(b)
	}
}

var lengthAxis = []perflab.Axis{{Name: "length", Values: []string{"100", "10000"}}}

// sequenceCompareTo: bytes.Compare of two equal slices, or of two that differ in the last byte.
func sequenceCompareTo(differLast bool) func(map[string]string) func(int) {
	return func(p map[string]string) func(int) {
		length, err := strconv.Atoi(p["Length"])
		if err != nil {
			panic(err)
		}
		orig := make([]byte, length)
		for i := range orig {
			orig[i] = byte(i)
		}
		other := slices.Clone(orig)
		if differLast {
			other[length-1]++
		}
		return func(n int) {
			r := 0
			for i := 0; i < n; i++ {
				r += bytes.Compare(orig, other)
			}
			perflab.Sink(r)
		}
	}
}

var compareAxis = []perflab.Axis{{Name: "Length", Values: []string{"16", "256"}}}

func init() {
	perflab.Func("IndexOf", func() int { return strings.IndexByte(periodText, '.') },
		perflab.Categories("arrays_strings", "quick"), meta("003", s003), perflab.Meta("fidelity", "faithful"),
		perflab.Description("string.IndexOf('.') ↔ strings.IndexByte"))
	perflab.Func("IndexOfAny", func() int { return bytes.IndexAny(anyBytes, ".?") },
		arraysStrings, meta("003", span), perflab.Meta("fidelity", "faithful", "seed_method", "IndexOf"), // the seed's IndexOf calls IndexOfAny
		perflab.Description("Span<byte>.IndexOfAny('.', '?') ↔ bytes.IndexAny"))
	perflab.Func("Join", func() string { return strings.Join(joinParts, ", ") },
		arraysStrings, meta("000", s000), perflab.Meta("fidelity", "faithful"),
		perflab.Description("string.Join(\", \", 5 strings) ↔ strings.Join"))

	perflab.Func("Yell", func() string { return strings.ReplaceAll(replaceText, ".", "!") },
		arraysStrings, meta("000", s000), perflab.Meta("fidelity", replaceText100KB), perflab.Group("Replace"))
	perflab.Func("ConcatLines", func() string { return strings.ReplaceAll(replaceText, "\n", "") },
		arraysStrings, meta("000", s000), perflab.Meta("fidelity", replaceText100KB), perflab.Group("Replace"))
	perflab.Func("NormalizeEndings", func() string { return strings.ReplaceAll(replaceText, "\r\n", "\n") },
		arraysStrings, meta("000", s000), perflab.Meta("fidelity", replaceText100KB), perflab.Group("Replace"))

	perflab.Func("ToHexString", func() string { return hex.EncodeToString(hexData) },
		arraysStrings, meta("000", s000), perflab.Meta("fidelity", "faithful"), perflab.Group("Hex"),
		perflab.Description("Convert.ToHexString(64 random bytes) ↔ hex.EncodeToString (lowercase digits)"))
	perflab.Register(perflab.Benchmark{Name: "FromHexString", Group: "Hex", Categories: []string{"arrays_strings"},
		Meta:        map[string]string{"extra": "true", "related": "000 · " + s000},
		Description: "Convert.FromHexString ↔ hex.DecodeString",
		Params:      lengthAxis, Setup: hexBench})

	perflab.Bench("ArrayFill", func(n int) {
		for i := 0; i < n; i++ {
			for k := range chars {
				chars[k] = c
			}
		}
		perflab.Sink(chars[127])
	}, arraysStrings, meta("000", s000),
		perflab.Meta("fidelity", "partial: Go's std has no fill function; an element loop over the array (the Go idiom) stands for Array.Fill"),
		perflab.Description("Array.Fill(char[128], 'c') ↔ an element loop over the array"))
	perflab.Bench("SpanFill", func(n int) {
		for i := 0; i < n; i++ {
			s := chars[:]
			s[0] = c
			for filled := 1; filled < len(s); filled *= 2 { // copy-doubling, as bytes.Repeat fills
				copy(s[filled:], s[:filled])
			}
		}
		perflab.Sink(chars[127])
	}, arraysStrings, meta("000", s000),
		perflab.Meta("fidelity", "partial: Go's std has no fill function; a slice filled by copy-doubling (memmove, as bytes.Repeat does) stands for Span.Fill"),
		perflab.Description("Span<char>.Fill ↔ fill a slice by copy-doubling (memmove)"))
	perflab.Bench("Clear", func(n int) {
		for i := 0; i < n; i++ {
			clear(ints10)
		}
		perflab.Sink(ints10[9])
	}, arraysStrings, meta("000", s000), perflab.Meta("fidelity", "faithful", "seed_method", "New"), // the seed's New: Array.Clear(array)
		perflab.Description("Array.Clear(int[10]) ↔ the clear builtin"))
	perflab.Bench("Reverse", func(n int) {
		for i := 0; i < n; i++ {
			slices.Reverse(rev)
		}
		perflab.Sink(rev[0])
	}, arraysStrings, meta("003", s003), perflab.Meta("fidelity", "faithful"),
		perflab.Description("Array.Reverse(int[256]) ↔ slices.Reverse"))

	perflab.Register(perflab.Benchmark{Name: "CompareSame", Group: "SequenceCompareTo", Categories: []string{"arrays_strings"},
		Meta:   map[string]string{"seed": "003", "section": span, "fidelity": "faithful"},
		Params: compareAxis, Setup: sequenceCompareTo(false)})
	perflab.Register(perflab.Benchmark{Name: "CompareDifferLast", Group: "SequenceCompareTo", Categories: []string{"arrays_strings"},
		Meta:   map[string]string{"seed": "003", "section": span, "fidelity": "faithful"},
		Params: compareAxis, Setup: sequenceCompareTo(true)})

	perflab.Func("EqualsIC", func() bool { return strings.EqualFold(icLeft, icRight) },
		arraysStrings, meta("003", s003), perflab.Meta("fidelity", "faithful"),
		perflab.Description("Equals(…, OrdinalIgnoreCase) ↔ strings.EqualFold"))
	perflab.Func("ToUpperInvariant", func() string { return strings.ToUpper(upperSource) },
		arraysStrings, meta("003", span),
		perflab.Meta("fidelity", "partial: strings.ToUpper allocates a new string; the seed writes into a reused char buffer"),
		perflab.Description("ToUpperInvariant ↔ strings.ToUpper"))

	perflab.Register(perflab.Benchmark{Name: "Trim", Categories: []string{"arrays_strings"},
		Meta:        map[string]string{"seed": "003", "section": span, "fidelity": "faithful"},
		Description: "Trim ↔ strings.TrimSpace (a substring: nothing is copied, as the seed's span)",
		Params:      []perflab.Axis{{Name: "Data", Values: []string{"", " abcdefg ", "abcdefg"}}},
		Setup: func(p map[string]string) func(int) {
			data := p["Data"]
			return func(n int) {
				var s string
				for i := 0; i < n; i++ {
					s = strings.TrimSpace(data)
				}
				perflab.Sink(s)
			}
		}})
}
