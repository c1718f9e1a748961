//go:build go1.24

package textproc

import "testing"

// BenchmarkJoinBuilderLoop is the b.Loop (Go 1.24+) form: b.Loop keeps the call's result alive.
func BenchmarkJoinBuilderLoop(b *testing.B) {
	for b.Loop() {
		JoinBuilder(words)
	}
}
