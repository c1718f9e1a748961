// Package startup ports the start-up experiments of the seed documents to os/exec: seed 000
// (".NET 6": Startup — a "Hello, World" app timed from outside) and seed 003 (".NET Core 3.0":
// Process — ProcessStartWait on a no-op program).
//
// The benchmarks are registered with perflab's native API in the _test.go files; run them with
// `perflab run suites/seeds/startup/go --runtimes go1.21,go1.26`.
package startup
