// Package hashing compares two string hashes.
package hashing

import "hash/fnv"

// FNV is the standard library's FNV-1a.
func FNV(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// DJB2 is Bernstein's hash.
func DJB2(s string) uint64 {
	var h uint64 = 5381
	for i := 0; i < len(s); i++ {
		h = h*33 + uint64(s[i])
	}
	return h
}
