package startup

// Startup experiments of seeds 000 and 003, ported as scenarios: one invocation starts a process
// and waits for it. The programs started are built in the case's setup by the Go toolchain under
// test (runtime.GOROOT()/bin/go, checked against runtime.Version()), so the Runtime column compares
// the start-up of each Go version's own binaries — and each version's os/exec.

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"perflab.dev/go/perflab"
)

func must(err error) {
	if err != nil {
		panic(err)
	}
}

var state struct{ dir, program string }

// buildProgram writes a one-file main package to a temporary folder and builds it with this
// binary's own toolchain (offline: GOPROXY=off, GOTOOLCHAIN=local).
func buildProgram(source string) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	env := append(os.Environ(), "GOTOOLCHAIN=local", "GOWORK=off", "GOFLAGS=", "GOPROXY=off", "GO111MODULE=on")
	out, err := exec.Command(goBin, "env", "GOVERSION").Output()
	if err != nil {
		panic("cannot run the toolchain of this binary (" + goBin + "): " + err.Error())
	}
	if v := strings.TrimSpace(string(out)); v != runtime.Version() {
		panic("the toolchain at " + goBin + " is " + v + ", this binary was built by " + runtime.Version())
	}
	dir, err := os.MkdirTemp("", "perflab-seed-startup-")
	must(err)
	state.dir, state.program = dir, filepath.Join(dir, "program")
	must(os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module program\n\ngo 1.21\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "main.go"), []byte(source), 0o644))
	build := exec.Command(goBin, "build", "-o", state.program, ".")
	build.Dir, build.Env = dir, env
	if out, err := build.CombinedOutput(); err != nil {
		panic("go build: " + err.Error() + ": " + string(out))
	}
}

func teardown() {
	if state.dir != "" {
		_ = os.RemoveAll(state.dir)
	}
	state.dir, state.program = "", ""
}

// startWait starts path and waits for it, n times (stdout and stderr go to /dev/null).
func startWait(path func() string) func(int) {
	return func(n int) {
		p := path()
		for i := 0; i < n; i++ {
			must(exec.Command(p).Run())
		}
	}
}

const (
	helloSource = "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"Hello, World!\") }\n"
	nopSource   = "package main\n\nfunc main() {}\n"
)

func program() string { return state.program }

func init() {
	perflab.Register(perflab.Benchmark{Name: "HelloWorld", Categories: []string{"startup", "quick"},
		Meta:        map[string]string{"seed": "000", "section": "Startup", "scenario": "true", "fidelity": "faithful"},
		Description: "Start a Go \"Hello, World!\" (fmt.Println) built by the toolchain under test, and wait for it",
		Setup: func(map[string]string) func(int) {
			buildProgram(helloSource)
			return startWait(program)
		}, Teardown: teardown})
	// Not the seed's experiment (its target is a no-op C program): an empty Go program carries the
	// Go runtime's own start-up.
	perflab.Register(perflab.Benchmark{Name: "ProcessStartWaitGoProgram", Categories: []string{"startup"},
		Meta:        map[string]string{"extra": "true", "related": "003 · Process"},
		Description: "Start an empty Go program (func main() {}) built by the toolchain under test, and wait for it",
		Setup: func(map[string]string) func(int) {
			buildProgram(nopSource)
			return startWait(program)
		}, Teardown: teardown})
	perflab.Register(perflab.Benchmark{Name: "ProcessStartWait", Categories: []string{"startup"},
		Meta:        map[string]string{"seed": "003", "section": "Process", "fidelity": "faithful"},
		Description: "Process.Start(nop).WaitForExit(): the no-op native program /bin/true (os/exec's start path)",
		Setup: func(map[string]string) func(int) {
			return startWait(func() string { return "/bin/true" })
		}})
}
