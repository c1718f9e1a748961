//go:build !linux

package fileio

import (
	"errors"
	"os"
)

var errNotLinux = errors.New("pwritev/fallocate: this port uses Linux system calls")

type gatherWriter struct{}

func newGatherWriter(f *os.File, bufs [][]byte) *gatherWriter { return &gatherWriter{} }

func (g *gatherWriter) writeAt(off int64) error { return errNotLinux }

func fallocate(f *os.File, size int64) error { return errNotLinux }
