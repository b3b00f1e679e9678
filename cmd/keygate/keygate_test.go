package main_test

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"
)

var listening = regexp.MustCompile(`"msg":"listening","addr":"(127\.0\.0\.1:\d+)"`)

// start runs keygate serve on an ephemeral port and returns its session and
// base URL once it logged the bound address.
func start(dataDir string, extra ...string) (*gexec.Session, string) {
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--proxy-listen", "127.0.0.1:0", "--data-dir", dataDir, "--log-format", "json"}, extra...)
	session, err := gexec.Start(exec.Command(binary, args...), GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() { session.Kill().Wait() })
	Eventually(session.Err, 10*time.Second).Should(gbytes.Say(`"msg":"listening"`))
	m := listening.FindSubmatch(session.Err.Contents())
	Expect(m).NotTo(BeNil(), "log line names the bound address")
	return session, "http://" + string(m[1])
}

func status(url string) int {
	resp, err := http.Get(url)
	if err != nil {
		return 0
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

var _ = Describe("keygate serve", func() {
	var dataDir string

	BeforeEach(func() {
		dataDir = filepath.Join(GinkgoT().TempDir(), "fresh", "data")
	})

	It("creates an empty data dir with mode 0700 and answers /healthz and /readyz", func() {
		_, base := start(dataDir)
		Eventually(func() int { return status(base + "/healthz") }, 10*time.Second).Should(Equal(http.StatusOK))
		Expect(status(base + "/readyz")).To(Equal(http.StatusOK))
		st, err := os.Stat(dataDir)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Mode().Perm()).To(Equal(os.FileMode(0o700)))
	})

	It("reports not ready once the data dir can no longer take writes", func() {
		_, base := start(dataDir)
		Eventually(func() int { return status(base + "/readyz") }, 10*time.Second).Should(Equal(http.StatusOK))
		By("replacing the data dir with a plain file, which fails even for root")
		Expect(os.RemoveAll(dataDir)).To(Succeed())
		Expect(os.WriteFile(dataDir, nil, 0o600)).To(Succeed())
		Expect(status(base + "/readyz")).To(Equal(http.StatusServiceUnavailable))
		Expect(status(base+"/healthz")).To(Equal(http.StatusOK), "liveness is not readiness")
	})

	It("serves the console at / and the control API on the same listener, over the embedded store", func() {
		_, base := start(dataDir)
		Eventually(func() int { return status(base + "/healthz") }, 10*time.Second).Should(Equal(http.StatusOK))
		resp, err := http.Get(base + "/")
		Expect(err).NotTo(HaveOccurred())
		page, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(string(page)).To(ContainSubstring(`<div id="root">`))

		resp, err = http.Post(base+"/keygate.control.v1.ModelService/ListModels", "application/json", strings.NewReader("{}"))
		Expect(err).NotTo(HaveOccurred())
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
		Expect(filepath.Join(dataDir, "keygate.db")).To(BeARegularFile())

		By("signing in the loopback user as the local administrator, with no login")
		resp, err = http.Get(base + "/auth/me")
		Expect(err).NotTo(HaveOccurred())
		body, _ = io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))

		By("exposing Prometheus metrics and the CA certificate Cursor's machine must trust")
		resp, err = http.Get(base + "/metrics")
		Expect(err).NotTo(HaveOccurred())
		body, _ = io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		Expect(string(body)).To(ContainSubstring("# TYPE"))
		resp, err = http.Get(base + "/ca.crt")
		Expect(err).NotTo(HaveOccurred())
		body, _ = io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		Expect(string(body)).To(HavePrefix("-----BEGIN CERTIFICATE-----"))
		Expect(filepath.Join(dataDir, "ca.key")).To(BeARegularFile())
	})

	It("shuts down cleanly within 5 seconds of SIGTERM", func() {
		session, base := start(dataDir)
		Eventually(func() int { return status(base + "/healthz") }, 10*time.Second).Should(Equal(http.StatusOK))
		session.Signal(syscall.SIGTERM)
		Eventually(session, 5*time.Second).Should(gexec.Exit(0))
		Expect(session.Err).To(gbytes.Say(`shutting down`))
	})

	It("refuses an invalid configuration with exit code 2 and says why", func() {
		session, err := gexec.Start(exec.Command(binary, "serve", "--listen", "no-port"), GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		Eventually(session, 5*time.Second).Should(gexec.Exit(2))
		Expect(session.Err).To(gbytes.Say(`listen address "no-port"`))
	})
})

var _ = Describe("keygate version", func() {
	It("prints the product name and a version", func() {
		session, err := gexec.Start(exec.Command(binary, "version"), GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		Eventually(session, 5*time.Second).Should(gexec.Exit(0))
		Expect(session.Out).To(gbytes.Say(`^keygate \S+`))
	})
})
