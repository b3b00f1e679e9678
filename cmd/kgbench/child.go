package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"keygate/adapters/upstream/upstreamtest"
)

// ErrNoAddress means the Keygate child exited or stayed silent instead of
// printing its addresses.
var ErrNoAddress = errors.New("keygate child printed no address")

// child is a process kgbench starts of itself: a subcommand with a flag
// set of its own, whose one flag is the parent's address the child needs.
type child struct {
	name, flag, usage string
	// serve is the child's whole life, given that address.
	serve func(addr string) error
}

var (
	// keygateChild is the same stack the in-process scenarios use, in a
	// process of its own, so that its resident memory is Keygate's alone
	// (no fake provider, no simulated clients).
	keygateChild = child{name: "serve-keygate", flag: "provider", usage: "base URL of the parent's fake provider", serve: serveKeygate}
	// appChild is Keygate's real composition root (appchild.go).
	appChild = child{name: "serve-app", flag: "traces", usage: "OTLP/HTTP traces URL of the parent's collector", serve: serveApp}
)

// childNamed finds the child a subcommand names.
func childNamed(name string) (child, bool) {
	for _, c := range []child{keygateChild, appChild} {
		if c.name == name {
			return c, true
		}
	}
	return child{}, false
}

// main parses the child's flags and serves.
func (c child) main(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("kgbench "+c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String(c.flag, "", c.usage)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *addr == "" || fs.NArg() > 0 {
		return fmt.Errorf("%w: kgbench %s -%s ADDRESS", ErrUsage, c.name, c.flag)
	}
	if err := c.serve(*addr); err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	return nil
}

// args is the command line that starts the child with addr.
func (c child) args(addr string) []string { return []string{c.name, "-" + c.flag, addr} }

// serveKeygate is the child's whole life: build the stack against the
// parent's fake provider, print the Cursor routes' address and the control
// address on stdout, serve until stdin closes (the parent ended or asked).
func serveKeygate(providerURL string) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "kgbench-child-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	s, err := newStack(ctx, dir, providerURL)
	if err != nil {
		return err
	}
	defer s.close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen for control: %w", err)
	}
	ctl := &http.Server{Handler: controlRoutes(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = ctl.Serve(ln) }()
	defer ctl.Close()
	fmt.Printf("%s http://%s\n", s.env.URL, ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

// controlRoutes let the parent settle the child's heap before a run and
// read what only the child's runtime knows: live heap, goroutines and its
// CPU time (as "heap goroutines cpu-nanoseconds"), and a heap profile.
func controlRoutes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /settle", func(w http.ResponseWriter, _ *http.Request) {
		runtime.GC()
		debug.FreeOSMemory()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) {
		h, g := heapAndGoroutines()
		fmt.Fprintf(w, "%d %d %d", h, g, cpuTime())
	})
	mux.HandleFunc("GET /heap", func(w http.ResponseWriter, _ *http.Request) {
		runtime.GC()
		_ = pprof.Lookup("heap").WriteTo(w, 0)
	})
	return mux
}

// ownProcess is the parent's handle on the Keygate child.
type ownProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	// url is the Cursor routes' base URL; client reaches it as the
	// in-process stack's client reaches its adapter.
	url     string
	control string
	// extra are further addresses a child printed.
	extra  []string
	client *http.Client
	ctl    *http.Client
}

// startOwnProcess starts this binary in child mode against providerURL. The
// child inherits the environment (GOGC, GOMAXPROCS) and the priority.
func startOwnProcess(providerURL string) (*ownProcess, error) {
	return startChild(nil, keygateChild.args(providerURL)...)
}

// startChild starts this binary with args and env added to this process's
// environment, and reads the two addresses the child prints first.
func startChild(env []string, args ...string) (*ownProcess, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find own binary: %w", err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start keygate child: %w", err)
	}
	p := &ownProcess{cmd: cmd, stdin: stdin,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4096, DialContext: upstreamtest.Dialer(nil)}},
		ctl:    &http.Client{Timeout: 30 * time.Second},
	}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case l := <-line:
		if f := strings.Fields(l); len(f) >= 2 {
			p.url, p.control, p.extra = f[0], f[1], f[2:]
			return p, nil
		}
	case <-time.After(time.Minute):
	}
	p.close()
	return nil, ErrNoAddress
}

// close asks the child to end (stdin closes) and kills it if it does not.
func (p *ownProcess) close() {
	p.client.CloseIdleConnections()
	_ = p.stdin.Close()
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
}

// meter is the measured process of one concurrency run: this one, or the
// Keygate child.
type meter interface {
	// settle collects garbage and returns free memory to the system.
	settle()
	// pid names the process under /proc ("self" for this one).
	pid() string
	// runtime returns the live heap objects, goroutines and CPU time.
	runtime() (heap, goroutines int64, cpu time.Duration)
	// heapProfile writes a heap profile after a collection.
	heapProfile(w io.Writer) error
}

// self meters this process.
type self struct{}

func (self) settle() { runtime.GC(); debug.FreeOSMemory() }

func (self) pid() string { return "self" }

func (self) runtime() (int64, int64, time.Duration) {
	h, g := heapAndGoroutines()
	return h, g, cpuTime()
}

func (self) heapProfile(w io.Writer) error {
	runtime.GC()
	return pprof.WriteHeapProfile(w)
}

func (p *ownProcess) heapProfile(w io.Writer) error {
	resp, err := p.ctl.Get(p.control + "/heap")
	if err != nil {
		return fmt.Errorf("get child heap profile: %w", err)
	}
	defer resp.Body.Close()
	_, err = io.Copy(w, resp.Body)
	return err
}

func (p *ownProcess) settle() {
	if resp, err := p.ctl.Post(p.control+"/settle", "", nil); err == nil {
		resp.Body.Close()
	}
}

func (p *ownProcess) pid() string { return strconv.Itoa(p.cmd.Process.Pid) }

// cpu is the child's user plus system CPU time so far, as its runtime
// reports it.
func (p *ownProcess) cpu() time.Duration {
	_, _, cpu := p.runtime()
	return cpu
}

func (p *ownProcess) runtime() (int64, int64, time.Duration) {
	resp, err := p.ctl.Get(p.control + "/stats")
	if err != nil {
		return 0, 0, 0
	}
	defer resp.Body.Close()
	var h, g, cpu int64
	_, _ = fmt.Fscan(resp.Body, &h, &g, &cpu)
	return h, g, time.Duration(cpu)
}

func readStatus(pid string) string {
	b, _ := os.ReadFile("/proc/" + pid + "/status")
	return string(b)
}

// resetPeak resets the high-water mark of pid's resident memory (VmHWM),
// so that it tells one run's peak; false when the kernel refused.
func resetPeak(pid string) bool {
	return os.WriteFile("/proc/"+pid+"/clear_refs", []byte("5"), 0) == nil
}

// statusKiB reads one "Name: N kB" field of a /proc status as bytes.
func statusKiB(status, name string) int64 {
	for _, line := range strings.Split(status, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == name+":" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n * 1024
		}
	}
	return 0
}
