//go:build linux

package perflab

import (
	"syscall"
	"unsafe"
)

// cpuClockSource names the clock ThreadCPUTime reads (hello's cpu_clock.source).
const cpuClockSource = "clock_gettime(CLOCK_THREAD_CPUTIME_ID)"

const clockThreadCPUTimeID = 3 // CLOCK_THREAD_CPUTIME_ID in <linux/time.h>

// ThreadCPUTime returns the CPU time, in nanoseconds, of the OS thread the calling goroutine runs
// on; ok is false when the clock cannot be read. Only meaningful while the goroutine is locked to
// its thread (runtime.LockOSThread): the worker locks the measuring goroutine during a run.
func ThreadCPUTime() (ns int64, ok bool) {
	var ts syscall.Timespec
	_, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return 0, false
	}
	return ts.Nano(), true
}
