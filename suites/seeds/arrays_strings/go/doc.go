// Package arraysstrings ports the Arrays, Strings and Spans experiments of seeds 000 (".NET 6":
// Arrays, Strings, Spans) and 003 (".NET Core 3.0": Span and Friends, Arrays and Strings) to Go's
// strings, bytes, encoding/hex and slices packages.
//
// The benchmarks are registered with perflab's native API in the _test.go files; run them with
// `perflab run suites/seeds/arrays_strings/go --runtimes go1.21,go1.26`.
package arraysstrings
