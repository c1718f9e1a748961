// Package threading ports the threading experiments of the seed documents (000 "Threading", 001
// ThreadStatic/Tasks/Parallel, 003 "Threading") to goroutines, channels, sync and context.
//
// The benchmarks are registered with perflab's native API in the _test.go files; run them with
// `perflab run suites/seeds/threading/go --runtimes go1.21,go1.26`.
package threading
