package hashing_test

import (
	"strings"
	"testing"

	"example.com/perflab-examples/hashing"
)

var key = strings.Repeat("perflab", 10)

var sink uint64

// BenchmarkFNV hashes a 70-byte key with hash/fnv (an external test package benchmark).
//
//perflab:baseline
func BenchmarkFNV(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = hashing.FNV(key)
	}
}

// BenchmarkDJB2 hashes the same key with DJB2.
func BenchmarkDJB2(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = hashing.DJB2(key)
	}
}
