package porttest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// CrashReady is the line a crash child prints once it is worth killing.
const CrashReady = "crash child ready"

// StartCrashChild re-runs the current test binary's test testName with env
// added, as the child of a crash spec. The returned channel is closed when
// the child prints [CrashReady].
func StartCrashChild(testName string, env ...string) (*exec.Cmd, <-chan struct{}) {
	cmd := exec.Command(os.Args[0], "-test.run=^"+testName+"$")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = GinkgoWriter
	out, err := cmd.StdoutPipe()
	Expect(err).NotTo(HaveOccurred())
	Expect(cmd.Start()).To(Succeed())
	ready := make(chan struct{})
	go func() {
		lines := bufio.NewScanner(out)
		for lines.Scan() {
			if lines.Text() == CrashReady {
				close(ready)
			}
		}
	}()
	return cmd, ready
}

// SignalReady is the ready callback of a crash child.
func SignalReady() { _, _ = fmt.Fprintln(os.Stdout, CrashReady) }

// ExpectKilled waits for a crash child and checks that SIGKILL ended it,
// not an error of its own.
func ExpectKilled(cmd *exec.Cmd) {
	err := cmd.Wait()
	var exit *exec.ExitError
	Expect(errors.As(err, &exit)).To(BeTrue(), "the child ended without being killed: %v", err)
	Expect(exit.Sys().(syscall.WaitStatus).Signal()).To(Equal(syscall.SIGKILL))
}
