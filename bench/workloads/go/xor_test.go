package xor

import (
	"os"
	"strconv"
	"testing"
)

var size = func() int {
	n, _ := strconv.Atoi(os.Getenv("AB_SIZE"))
	if n <= 0 {
		n = 100
	}
	return n
}()

var sink uint64

// BenchmarkWork performs AB_SIZE × 10 dependent xor-shift steps per op.
func BenchmarkWork(b *testing.B) {
	x := uint64(88172645463325252)
	for i := 0; i < b.N; i++ {
		for j := 0; j < 10*size; j++ {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
	}
	sink = x
}
