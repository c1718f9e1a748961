// Counted under valgrind by tests/test_count_python_go.py and bench/count_python_go.py.
package work

import (
	"strconv"
	"testing"

	"perflab.dev/go/perflab"
)

var sink uint64

//go:noinline
func step(x uint64) uint64 { return x*6364136223846793005 + 1442695040888963407 }

// BenchmarkWork: a sub-benchmark per n, so the count goes through b.Run's hook too.
func BenchmarkWork(b *testing.B) {
	for _, n := range []int{1000, 2000} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				x := uint64(3)
				for j := 0; j < n; j++ {
					x = step(x)
				}
				sink = x
			}
		})
	}
}

func BenchmarkFails(b *testing.B) {
	panic("boom under the count")
}

// the same work through the native API (its own marker: countedNative)
func init() {
	perflab.Register(perflab.Benchmark{
		Name:   "NativeWork",
		Params: []perflab.Axis{{Name: "n", Values: []string{"1000"}}},
		Setup: func(p map[string]string) func(int) {
			size, _ := strconv.Atoi(p["n"])
			return func(n int) {
				for i := 0; i < n; i++ {
					x := uint64(3)
					for j := 0; j < size; j++ {
						x = step(x)
					}
					sink = x
				}
			}
		},
	})
}
