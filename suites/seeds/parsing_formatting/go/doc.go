// Package parsingformatting ports the Parsing/Formatting experiments of seed 003 (".NET Core 3.0")
// and the System Types formatting of seed 000 (".NET 6") to Go's strconv, time and fmt packages.
//
// The benchmarks are registered with perflab's native API in the _test.go files; run them with
// `perflab run suites/seeds/parsing_formatting/go --runtimes go1.21,go1.26`.
package parsingformatting
