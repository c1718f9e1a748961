//go:build linux

package fileio

import (
	"fmt"
	"math/bits"
	"os"
	"syscall"
	"unsafe"
)

// gatherWriter writes the same list of buffers with one pwritev(2) per call. Go's os.File has no
// gather write for files (net.Buffers uses writev only on sockets), so this is the raw system call
// of the standard syscall package, made on the descriptor through f.SyscallConn.
type gatherWriter struct {
	f     *os.File
	iov   []syscall.Iovec
	total int
}

func newGatherWriter(f *os.File, bufs [][]byte) *gatherWriter {
	g := &gatherWriter{f: f, iov: make([]syscall.Iovec, len(bufs))}
	for i, b := range bufs {
		g.iov[i].Base = &b[0]
		g.iov[i].SetLen(len(b))
		g.total += len(b)
	}
	return g
}

func (g *gatherWriter) writeAt(off int64) error {
	rc, err := g.f.SyscallConn()
	if err != nil {
		return err
	}
	var n uintptr
	var errno syscall.Errno
	// the offset is passed as (low, high) words; on 64-bit systems the high word is 0
	lo, hi := uintptr(off), uintptr(uint64(off)>>(bits.UintSize-1)>>1)
	err = rc.Write(func(fd uintptr) bool {
		n, _, errno = syscall.Syscall6(syscall.SYS_PWRITEV, fd, uintptr(unsafe.Pointer(&g.iov[0])),
			uintptr(len(g.iov)), lo, hi, 0)
		return true
	})
	switch {
	case err != nil:
		return err
	case errno != 0:
		return os.NewSyscallError("pwritev", errno)
	case int(n) != g.total:
		return fmt.Errorf("pwritev: short write (%d of %d bytes)", n, g.total)
	}
	return nil
}

// fallocate reserves size bytes for f (mode 0: allocate and extend the file size), the call
// posix_fallocate makes on Linux and .NET makes for FileStreamOptions.PreallocationSize.
func fallocate(f *os.File, size int64) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = syscall.Fallocate(int(fd), 0, 0, size) }); err != nil {
		return err
	}
	return os.NewSyscallError("fallocate", ferr)
}
