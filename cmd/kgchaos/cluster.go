package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"keygate/adapters/ca"
	"keygate/adapters/secret"
	"keygate/app/config"
)

// Trusted-header sign-in of the harness: it plays the authenticating proxy
// in front of the console to create the model and the members' tokens.
const (
	userHeader   = "X-Chaos-User"
	groupsHeader = "X-Chaos-Groups"
	adminGroup   = "chaos-admins"
)

// ErrNotReady means a replica did not answer /readyz 200 in time.
var ErrNotReady = errors.New("replica not ready")

// build compiles the real keygate binary into dir, as a deployment ships
// it, or with the race detector.
func build(ctx context.Context, dir string, race bool) (string, error) {
	bin := filepath.Join(dir, "keygate")
	args := []string{"build", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "./cmd/keygate")...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build ./cmd/keygate: %w", err)
	}
	return bin, nil
}

// replica is one `keygate serve` process; its ports stay the same across
// restarts, as a pod's do behind a service.
type replica struct {
	n              int
	console, proxy string
	dataDir        string
	log            *os.File

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	up   bool
}

// cluster is the replicas on one database, sharing one secret key and one
// company CA, and what the harness needs to reach them.
type cluster struct {
	bin      string
	env      []string
	replicas []*replica
	// ca is the company CA the replicas intercept with and the members'
	// machines trust.
	ca *ca.Authority
}

// newCluster writes the company CA and the shared key, and picks each
// replica's ports and data directory under dir.
func newCluster(bin, dir, dsn, providerAddr string, n int, logLevel string) (*cluster, error) {
	root, keyPEM, err := ca.Generate(time.Now(), "kgchaos company root")
	if err != nil {
		return nil, fmt.Errorf("generate company ca: %w", err)
	}
	caCert, caKey := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key")
	if err := os.WriteFile(caCert, root.CertPEM(), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(caKey, keyPEM, 0o600); err != nil {
		return nil, err
	}
	c := &cluster{bin: bin, ca: root, env: append(os.Environ(),
		config.EnvDatabaseURL+"="+dsn,
		config.EnvSecretKey+"="+secret.EncodeKey(secret.NewKey()),
		config.EnvCACert+"="+caCert, config.EnvCAKey+"="+caKey,
		config.EnvAuthMode+"=header", config.EnvAuthUserHeader+"="+userHeader, config.EnvAuthGroupsHeader+"="+groupsHeader,
		config.EnvAuthTrustedProxies+"=127.0.0.1/32", config.EnvAuthAdminGroups+"="+adminGroup,
		// The fake provider is on loopback, which company mode refuses
		// unless allow-listed; Cursor's own service is never reached.
		config.EnvEgressAllow+"="+providerAddr,
		config.EnvOutboundProxy+"=http://127.0.0.1:1",
		config.EnvLogFormat+"=json", config.EnvLogLevel+"="+logLevel,
	)}
	for i := range n {
		r := &replica{n: i, dataDir: filepath.Join(dir, fmt.Sprintf("replica-%d", i))}
		if r.console, err = freeAddr(); err != nil {
			return nil, err
		}
		if r.proxy, err = freeAddr(); err != nil {
			return nil, err
		}
		if r.log, err = os.Create(filepath.Join(dir, fmt.Sprintf("replica-%d.log", i))); err != nil {
			return nil, err
		}
		c.replicas = append(c.replicas, r)
	}
	return c, nil
}

// freeAddr is a loopback address nothing listens on yet.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// start runs replica r and waits until its /readyz answers 200.
func (c *cluster) start(ctx context.Context, r *replica) error {
	cmd := exec.Command(c.bin, "serve", "--listen", r.console, "--proxy-listen", r.proxy, "--data-dir", r.dataDir)
	cmd.Env = c.env
	cmd.Stdout, cmd.Stderr = r.log, r.log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start replica %d: %w", r.n, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	r.mu.Lock()
	r.cmd, r.done = cmd, done
	r.mu.Unlock()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return fmt.Errorf("replica %d exited at start (see %s): %w", r.n, r.log.Name(), ErrNotReady)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if readyz(r.console) == http.StatusOK {
			r.mu.Lock()
			r.up = true
			r.mu.Unlock()
			return nil
		}
	}
	return fmt.Errorf("replica %d: %w after 30 s (see %s)", r.n, ErrNotReady, r.log.Name())
}

func readyz(addr string) int {
	hc := http.Client{Timeout: time.Second}
	resp, err := hc.Get("http://" + addr + "/readyz")
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// kill ends replica r with SIGKILL, as the OOM killer or a node loss does,
// and waits for the process to be gone.
func (c *cluster) kill(r *replica) { c.signal(r, syscall.SIGKILL, 0) }

// terminate stops replica r as a rolling deploy does: SIGTERM, then
// SIGKILL if it has not exited within grace. It reports whether the
// process exited by itself.
func (c *cluster) terminate(r *replica, grace time.Duration) bool {
	return c.signal(r, syscall.SIGTERM, grace)
}

func (c *cluster) signal(r *replica, sig syscall.Signal, grace time.Duration) bool {
	r.mu.Lock()
	cmd, done := r.cmd, r.done
	r.up = false
	r.mu.Unlock()
	if cmd == nil {
		return true
	}
	_ = cmd.Process.Signal(sig)
	if sig != syscall.SIGKILL {
		select {
		case <-done:
			return true
		case <-time.After(grace):
			_ = cmd.Process.Signal(syscall.SIGKILL)
		}
	}
	<-done
	return false
}

// stop kills every replica and closes their logs.
func (c *cluster) stop() {
	for _, r := range c.replicas {
		c.kill(r)
		_ = r.log.Close()
	}
}

// panics counts the Go panics and fatal errors in the replicas' logs, and
// the race detector's reports.
func (c *cluster) panics() (panics, races int) {
	for _, r := range c.replicas {
		b, err := os.ReadFile(r.log.Name())
		if err != nil {
			continue
		}
		log := "\n" + string(b)
		panics += strings.Count(log, "\npanic: ") + strings.Count(log, "\nfatal error: ")
		races += strings.Count(log, "WARNING: DATA RACE")
	}
	return panics, races
}

// balancer is a round-robin TCP balancer in front of the replicas'
// proxies, as a company's load balancer in TCP mode is: each client
// connection goes to the next healthy replica that accepts it, so a turn's
// RunSSE and its BidiAppends land on different replicas. Like a load
// balancer's health check, it polls each replica's /readyz and sends new
// connections only to those that answer 200 (to any, when none does).
type balancer struct {
	ln       net.Listener
	replicas []*replica
	mu       sync.Mutex
	next     int
	ready    []bool
	conns    map[net.Conn]struct{}
	wg       sync.WaitGroup
	stop     chan struct{}
}

func newBalancer(replicas []*replica) (*balancer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("balancer: %w", err)
	}
	b := &balancer{ln: ln, replicas: replicas, ready: make([]bool, len(replicas)), conns: map[net.Conn]struct{}{}, stop: make(chan struct{})}
	for i := range b.ready {
		b.ready[i] = true
	}
	b.wg.Add(2)
	go b.serve()
	go b.check()
	return b, nil
}

// check polls every replica's /readyz, as a load balancer's health check.
func (b *balancer) check() {
	defer b.wg.Done()
	for {
		select {
		case <-b.stop:
			return
		case <-time.After(250 * time.Millisecond):
		}
		for i, r := range b.replicas {
			ok := readyz(r.console) == http.StatusOK
			b.mu.Lock()
			b.ready[i] = ok
			b.mu.Unlock()
		}
	}
}

// order is the replicas to try for the next connection: the healthy ones
// from the round-robin position on, then the others.
func (b *balancer) order() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	start := b.next
	b.next++
	var healthy, rest []string
	for i := range b.replicas {
		j := (start + i) % len(b.replicas)
		if b.ready[j] {
			healthy = append(healthy, b.replicas[j].proxy)
		} else {
			rest = append(rest, b.replicas[j].proxy)
		}
	}
	return append(healthy, rest...)
}

func (b *balancer) addr() string { return b.ln.Addr().String() }

func (b *balancer) serve() {
	defer b.wg.Done()
	for {
		in, err := b.ln.Accept()
		if err != nil {
			return
		}
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			b.pipe(in)
		}()
	}
}

// pipe connects in to the next replica that answers the dial (a dead one
// refuses at once, as a health-checked pool would skip it) and copies both
// ways until either side closes.
func (b *balancer) pipe(in net.Conn) {
	defer in.Close()
	var out net.Conn
	for _, addr := range b.order() {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err == nil {
			out = c
			break
		}
	}
	if out == nil {
		return
	}
	defer out.Close()
	b.track(in, out, true)
	defer b.track(in, out, false)
	// Either side ending ends both: a replica that died resets the
	// client's connection, as a TCP balancer does.
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(out, in); done <- struct{}{} }()
	go func() { _, _ = io.Copy(in, out); done <- struct{}{} }()
	<-done
	_ = in.Close()
	_ = out.Close()
	<-done
}

func (b *balancer) track(in, out net.Conn, add bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if add {
		b.conns[in], b.conns[out] = struct{}{}, struct{}{}
		return
	}
	delete(b.conns, in)
	delete(b.conns, out)
}

// close stops accepting and cuts every open connection.
func (b *balancer) close() {
	close(b.stop)
	_ = b.ln.Close()
	b.mu.Lock()
	for c := range b.conns {
		_ = c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}
