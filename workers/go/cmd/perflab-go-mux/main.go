// Command perflab-go-mux presents several Go test binaries (one per package: a test binary can only
// hold one package's benchmarks) to the perflab host as a single protocol-v2 worker.
//
// Usage: perflab-go-mux PKGDIR=BINARY... (started by perflab with PERFLAB_CONNECT/PERFLAB_TOKEN).
// PKGDIR=@ERRORS.json names a package whose test binary did not build: ERRORS.json holds its
// `loaded.errors` entries (one per benchmark, with the compiler's message), which `load` reports, so
// that package's benchmarks fail alone and the other packages are measured. With no binary at all,
// the mux is itself a worker with nothing but those errors.
// Each child is started in its package directory (as `go test` does) with its own loopback socket; the
// multiplexer forwards `load` to every child, routes `setup` to the child owning the benchmark, and
// `run`/`teardown` to the child holding the current case. It never times anything itself. A child that
// dies makes the multiplexer exit with the child's status, so the host fails that case as usual.
package main

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"perflab.dev/go/perflab"
)

// protocolVersion is the one the children (perflab.Serve) speak: the mux answers in it too.
const protocolVersion = 2

var stopping atomic.Bool

var testFlags = []string{"-test.run=^TestPerflabWorkerZZ$", "-test.timeout=0", "-test.count=1", "-test.bench="}

type child struct {
	dir    string
	cmd    *exec.Cmd
	done   chan struct{} // closed once the child has exited and been reaped (by cmd.Wait)
	conn   net.Conn
	r      *bufio.Reader
	nextID int
	hello  map[string]any
}

func die(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "perflab-go-mux: "+format+"\n", args...)
	os.Exit(3)
}

func readMsg(r *bufio.Reader) (map[string]any, error) {
	line, err := r.ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var msg map[string]any
	if err := dec.Decode(&msg); err != nil {
		return nil, fmt.Errorf("malformed line %q", line)
	}
	return msg, nil
}

func writeMsg(c net.Conn, msg map[string]any) {
	data, err := json.Marshal(msg)
	if err != nil {
		die("encode: %v", err)
	}
	if _, err := c.Write(append(data, '\n')); err != nil {
		die("write: %v", err)
	}
}

func start(dir, binary string) *child {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		die("listen: %v", err)
	}
	defer ln.Close()
	tok := make([]byte, 16)
	_, _ = rand.Read(tok)
	token := hex.EncodeToString(tok)
	cmd := exec.Command(binary, testFlags...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "PERFLAB_CONNECT="+ln.Addr().String(), "PERFLAB_TOKEN="+token)
	if err := cmd.Start(); err != nil {
		die("cannot start %s: %v", binary, err)
	}
	exited := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		exited <- cmd.Wait()
		close(done)
	}()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			accepted <- c
		}
	}()
	var conn net.Conn
	select {
	case conn = <-accepted:
	case err := <-exited:
		exitLike(cmd, err, "worker for "+dir+" exited before connecting")
	case <-time.After(60 * time.Second):
		die("worker for %s did not connect", dir)
	}
	ch := &child{dir: dir, cmd: cmd, done: done, conn: conn, r: bufio.NewReaderSize(conn, 1<<16)}
	hello, err := readMsg(ch.r)
	if err != nil || hello["type"] != "hello" || hello["token"] != token {
		die("bad hello from the worker for %s", dir)
	}
	ch.hello = hello
	go func() {
		// Exit as the child did if it dies (crash, os.Exit): the host fails the running case.
		err := <-exited
		if stopping.Load() {
			return
		}
		exitLike(cmd, err, "worker for "+dir+" exited")
	}()
	return ch
}

func exitLike(cmd *exec.Cmd, err error, what string) {
	code := 1
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
		if code < 0 {
			code = 2 // killed by a signal; its message is already on stderr
		}
	}
	fmt.Fprintf(os.Stderr, "perflab-go-mux: %s (%v)\n", what, err)
	os.Exit(code)
}

func (c *child) ask(msg map[string]any) map[string]any {
	c.nextID++
	hostID := msg["id"]
	fwd := make(map[string]any, len(msg))
	for k, v := range msg {
		fwd[k] = v
	}
	fwd["id"] = c.nextID
	writeMsg(c.conn, fwd)
	reply, err := readMsg(c.r)
	if err != nil {
		// The child is gone: wait for its exit status (the watcher goroutine exits with it).
		time.Sleep(5 * time.Second)
		die("worker for %s closed its socket: %v", c.dir, err)
	}
	reply["id"] = hostID
	return reply
}

func under(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator)) ||
		strings.HasPrefix(dir, path+string(filepath.Separator))
}

// selectedBy: file is one of paths or under one of them (no paths: every file), as the worker's load.
func selectedBy(file string, paths []any) bool {
	if len(paths) == 0 {
		return true
	}
	for _, p := range paths {
		if s, ok := p.(string); ok && (file == s || strings.HasPrefix(file, s+string(filepath.Separator))) {
			return true
		}
	}
	return false
}

func main() {
	addr, token := os.Getenv("PERFLAB_CONNECT"), os.Getenv("PERFLAB_TOKEN")
	if addr == "" {
		die("PERFLAB_CONNECT is not set; this program is started by `perflab run`")
	}
	var children []*child
	var failed []map[string]any // load errors of the packages that did not build
	for _, arg := range os.Args[1:] {
		dir, bin, ok := strings.Cut(arg, "=")
		if !ok {
			die("argument %q is not PKGDIR=BINARY", arg)
		}
		if strings.HasPrefix(bin, "@") {
			data, err := os.ReadFile(bin[1:])
			var errs []map[string]any
			if err == nil {
				err = json.Unmarshal(data, &errs)
			}
			if err != nil {
				die("cannot read the load errors of %s: %v", dir, err)
			}
			failed = append(failed, errs...)
			continue
		}
		children = append(children, start(dir, bin))
	}
	if len(children) == 0 && len(failed) == 0 {
		die("no packages given")
	}
	if len(children) == 0 {
		// nothing built: answer as a worker whose every benchmark fails to load
		for _, e := range failed {
			perflab.AddLoadError(e)
		}
		if err := perflab.Serve(); err != nil {
			die("%v", err)
		}
		return
	}
	host, err := net.Dial("tcp", addr)
	if err != nil {
		die("connect: %v", err)
	}
	hello := children[0].hello
	hello["token"], hello["pid"] = token, os.Getpid()
	writeMsg(host, hello)
	hr := bufio.NewReaderSize(host, 1<<16)
	failedLoads := failed
	owner := map[string]*child{}
	var cur *child
	for {
		msg, err := readMsg(hr)
		if err != nil {
			if strings.Contains(err.Error(), "malformed") {
				writeMsg(host, map[string]any{"v": protocolVersion, "id": nil, "type": "error",
					"error": map[string]any{"kind": "protocol", "message": err.Error()}})
				continue
			}
			return
		}
		switch msg["type"] {
		case "load":
			paths, _ := msg["paths"].([]any)
			var benches, errs []any
			var failed map[string]any
			for _, c := range children {
				var mine []any
				for _, p := range paths {
					if s, ok := p.(string); ok && under(s, c.dir) {
						mine = append(mine, s)
					}
				}
				if len(paths) > 0 && len(mine) == 0 {
					continue
				}
				fwd := map[string]any{"v": msg["v"], "id": msg["id"], "type": "load", "paths": mine, "root": msg["root"]}
				if mine == nil {
					fwd["paths"] = []any{}
				}
				reply := c.ask(fwd)
				if reply["type"] != "loaded" {
					failed = reply
					break
				}
				for _, b := range reply["benchmarks"].([]any) {
					if id, ok := b.(map[string]any)["id"].(string); ok {
						owner[id] = c
					}
					benches = append(benches, b)
				}
				if e, ok := reply["errors"].([]any); ok {
					errs = append(errs, e...)
				}
			}
			if failed != nil {
				writeMsg(host, failed)
				continue
			}
			for _, e := range failedLoads {
				if file, _ := e["file"].(string); selectedBy(file, paths) {
					errs = append(errs, e)
				}
			}
			if benches == nil {
				benches = []any{}
			}
			if errs == nil {
				errs = []any{}
			}
			writeMsg(host, map[string]any{"v": protocolVersion, "id": msg["id"], "type": "loaded", "benchmarks": benches, "errors": errs})
		case "setup":
			id, _ := msg["benchmark"].(string)
			c := owner[id]
			if c == nil {
				writeMsg(host, map[string]any{"v": protocolVersion, "id": msg["id"], "type": "error",
					"error": map[string]any{"kind": "not_found", "message": fmt.Sprintf("no benchmark with id %q", id)}})
				continue
			}
			reply := c.ask(msg)
			if reply["type"] == "ready" {
				cur = c
			}
			writeMsg(host, reply)
		case "run", "teardown":
			c := cur
			if c == nil {
				c = children[0] // it answers with the right error (state) or done
			}
			if msg["type"] == "teardown" {
				cur = nil
			}
			writeMsg(host, c.ask(msg))
		case "bye":
			stopping.Store(true)
			for _, c := range children {
				c.ask(map[string]any{"v": msg["v"], "id": msg["id"], "type": "bye"})
			}
			writeMsg(host, map[string]any{"v": protocolVersion, "id": msg["id"], "type": "done"})
			for _, c := range children {
				_ = c.conn.Close()
			}
			// Reap the children before exiting: a child still exiting when the mux exits is
			// reparented to init, and its CPU time (the benchmark's) never reaches the host's
			// count of its own processes, which then reads it as other work on the machine.
			limit := time.Now().Add(2 * time.Second)
			for _, c := range children {
				select {
				case <-c.done:
				case <-time.After(time.Until(limit)):
				}
			}
			os.Exit(0)
		default:
			// version and protocol errors are answered by a child, which knows the rules.
			if v, ok := msg["v"].(json.Number); !ok || v.String() != strconv.Itoa(protocolVersion) {
				stopping.Store(true) // the child stops after a version error
			}
			reply := children[0].ask(msg)
			writeMsg(host, reply)
			if e, ok := reply["error"].(map[string]any); ok && e["kind"] == "version" {
				os.Exit(0)
			}
		}
	}
}
