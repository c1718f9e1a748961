// Package fileio ports the file I/O experiments of the seed documents to Go's os, bufio and io
// packages: seed 002 "File IO improvements in .NET 6" (seek, length, read/write with and without a
// stream buffer, their async forms, offset-based random access, scatter/gather, preallocation) and
// the IO section of seed 000 "Performance Improvements in .NET 6".
//
// The benchmarks are registered with perflab's native API in the _test.go files; run them with
// `perflab run suites/seeds/file_io/go --runtimes go1.21,go1.26`.
package fileio
