// Package regex ports the Regular Expressions experiment of seed 003 (".NET Core 3.0") to regexp.
//
// The benchmarks are registered with perflab's native API in the _test.go files; run them with
// `perflab run suites/seeds/regex/go --runtimes go1.21,go1.26`.
package regex
