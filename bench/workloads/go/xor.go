package xor
