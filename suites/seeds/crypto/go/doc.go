// Package crypto ports the cryptography experiments of seed 000 (".NET 6": Cryptography, and the
// SHA-256 of "Blazor and mono") to Go's crypto/... packages.
//
// The benchmarks are registered with perflab's native API in the _test.go files; run them with
// `perflab run suites/seeds/crypto/go --runtimes go1.21,go1.26`.
package crypto
