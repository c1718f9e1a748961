//go:build !linux

package perflab

// cpuClockSource is empty where no per-thread CPU clock is read: hello's cpu_clock is null.
const cpuClockSource = ""

// ThreadCPUTime reports no CPU time outside Linux (see cpuclock_linux.go).
func ThreadCPUTime() (ns int64, ok bool) { return 0, false }
