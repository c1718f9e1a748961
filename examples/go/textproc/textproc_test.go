package textproc

import (
	"fmt"
	"strings"
	"testing"
)

var words = strings.Fields(strings.Repeat("the quick brown fox jumps over the lazy dog ", 20))

var sinkString string
var sinkInt int

// BenchmarkJoinPlus concatenates 180 words with +.
func BenchmarkJoinPlus(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		sinkString = JoinPlus(words)
	}
}

// BenchmarkJoinBuilder concatenates 180 words with a strings.Builder.
//
//perflab:baseline
func BenchmarkJoinBuilder(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		sinkString = JoinBuilder(words)
	}
}

// BenchmarkSort sorts n words; copying the input is excluded with StopTimer/StartTimer.
func BenchmarkSort(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			src := make([]string, n)
			for i := range src {
				src[i] = words[(i*7)%len(words)] + fmt.Sprint(i%13)
			}
			buf := make([]string, n)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				copy(buf, src)
				b.StartTimer()
				SortWords(buf)
			}
		})
	}
}

// BenchmarkCountVowels reports throughput (SetBytes) and a custom metric.
func BenchmarkCountVowels(b *testing.B) {
	text := strings.Repeat("perflab measures go benchmarks ", 64)
	b.SetBytes(int64(len(text)))
	n := 0
	for i := 0; i < b.N; i++ {
		n += CountVowels(text)
	}
	sinkInt = n
	b.ReportMetric(float64(n)/float64(b.N), "vowels/op")
}
