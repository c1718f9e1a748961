// Package textproc is a tiny library whose ordinary `go test -bench` benchmarks perflab runs as they are.
package textproc

import (
	"sort"
	"strings"
)

// JoinPlus concatenates words with + (quadratic).
func JoinPlus(words []string) string {
	s := ""
	for i, w := range words {
		if i > 0 {
			s += " "
		}
		s += w
	}
	return s
}

// JoinBuilder concatenates words with a strings.Builder.
func JoinBuilder(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

// SortWords sorts in place.
func SortWords(words []string) { sort.Strings(words) }

// CountVowels counts ASCII vowels.
func CountVowels(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case 'a', 'e', 'i', 'o', 'u':
			n++
		}
	}
	return n
}
