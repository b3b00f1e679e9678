package pgtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// cluster is a private PostgreSQL cluster under /tmp.
type cluster struct {
	dir  string
	bin  string
	url  string
	cred *syscall.Credential
}

// startCluster runs initdb and pg_ctl from the newest installed version.
func startCluster() (*cluster, error) {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(found) == 0 {
		return nil, fmt.Errorf("no initdb under /usr/lib/postgresql/*/bin (apt-get install -y postgresql)")
	}
	slices.SortFunc(found, func(a, b string) int { return majorOf(a) - majorOf(b) })
	c := &cluster{bin: filepath.Dir(found[len(found)-1])}
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	c.dir = dir
	if os.Geteuid() == 0 {
		if err := c.dropRoot(); err != nil {
			c.stop()
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		c.stop()
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if err := c.run("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-locale", "--no-sync"); err != nil {
		c.stop()
		return nil, err
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off", port, dir)
	if err := c.run("pg_ctl", "-D", data, "-l", filepath.Join(dir, "server.log"), "-w", "-t", "30", "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		c.stop()
		return nil, fmt.Errorf("%w\n%s", err, log)
	}
	c.url = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	return c, nil
}

// dropRoot makes the cluster's processes run as user postgres.
func (c *cluster) dropRoot() error {
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("initdb refuses root and there is no postgres user: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	return os.Chown(c.dir, uid, gid)
}

// stop shuts the server down immediately and removes its directory.
func (c *cluster) stop() {
	if c.url != "" {
		_ = c.run("pg_ctl", "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "-w", "stop")
	}
	_ = os.RemoveAll(c.dir)
}

func (c *cluster) run(tool string, args ...string) error {
	cmd := exec.Command(filepath.Join(c.bin, tool), args...)
	cmd.Dir = c.dir // user postgres may not be able to read the caller's cwd
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	if c.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w\n%s", tool, err, out)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// majorOf reads the version from /usr/lib/postgresql/<major>/bin/initdb.
func majorOf(initdb string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return n
}
