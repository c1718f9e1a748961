// Package json ports the JSON experiments of seed 000 (".NET 6": JSON) to encoding/json.
//
// The benchmarks are registered with perflab's native API in the _test.go files; run them with
// `perflab run suites/seeds/json/go --runtimes go1.21,go1.26`.
package json
