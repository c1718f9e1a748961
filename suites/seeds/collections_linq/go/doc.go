// Package collectionslinq ports the Collections and LINQ experiments of seeds 000 (".NET 6":
// Collections and LINQ) and 003 (".NET Core 3.0": Collections, LINQ) to Go's maps, slices,
// container/heap and channels.
//
// The benchmarks are registered with perflab's native API in the _test.go files; run them with
// `perflab run suites/seeds/collections_linq/go --runtimes go1.21,go1.26`.
package collectionslinq
