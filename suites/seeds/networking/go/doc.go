// Package networking ports the networking experiments of seeds 000 (".NET 6": Networking) and 003
// (".NET Core 3.0": Networking) to Go's net and net/http. Everything stays on 127.0.0.1.
//
// The benchmarks are registered with perflab's native API in the _test.go files; run them with
// `perflab run suites/seeds/networking/go --runtimes go1.21,go1.26`.
package networking
