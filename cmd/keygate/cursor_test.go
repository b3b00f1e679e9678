package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"

	"keygate/adapters/ca"
)

// keygate runs the binary with args and environment additions, waiting for
// it to exit.
func keygate(env []string, args ...string) *gexec.Session {
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	session, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
	Expect(err).NotTo(HaveOccurred())
	Eventually(session, 10*time.Second).Should(gexec.Exit())
	return session
}

var _ = Describe("keygate cursor setup", func() {
	var dataDir, settings string

	BeforeEach(func() {
		dir := GinkgoT().TempDir()
		dataDir = filepath.Join(dir, "data")
		settings = filepath.Join(dir, "Cursor", "User", "settings.json")
		Expect(os.MkdirAll(filepath.Dir(settings), 0o755)).To(Succeed())
		Expect(os.WriteFile(settings, []byte("{\n    // mine\n    \"editor.fontSize\": 13\n}\n"), 0o644)).To(Succeed())
	})

	It("points Cursor at the proxy, creates the CA and explains how to trust it", func() {
		s := keygate(nil, "cursor", "setup", "--settings", settings, "--data-dir", dataDir, "--proxy", "127.0.0.1:7879")
		Expect(s).To(gexec.Exit(0))
		Expect(s.Out).To(gbytes.Say(`Created this installation's CA`))
		Expect(s.Out).To(gbytes.Say(filepath.Join(dataDir, "ca.crt")))
		Expect(s.Out).To(gbytes.Say(`security add-trusted-cert`))
		data, err := os.ReadFile(settings)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(And(
			ContainSubstring(`// mine`),
			ContainSubstring(`"http.proxy": "http://127.0.0.1:7879"`),
			ContainSubstring(`"cursor.general.disableHttp2": true`),
		))
		Expect(filepath.Join(dataDir, "ca.key")).To(BeAnExistingFile())
	})

	It("writes a company token from the environment into the https:// proxy URL without printing it, and says how Cursor trusts the proxy", func() {
		s := keygate([]string{"KEYGATE_PROXY_TOKEN=secret-token"}, "cursor", "setup",
			"--settings", settings, "--proxy", "https://proxy.corp.example:8443", "--ca-cert", "/etc/corp/root.crt")
		Expect(s).To(gexec.Exit(0))
		data, err := os.ReadFile(settings)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(ContainSubstring(`"https://keygate:secret-token@proxy.corp.example:8443"`))
		Expect(string(s.Out.Contents())).NotTo(ContainSubstring("secret-token"))
		Expect(s.Out).To(gbytes.Say(`The proxy speaks TLS \(proxy.corp.example:8443\)`))
		Expect(s.Out).To(gbytes.Say(`/etc/corp/root.crt`))
	})

	It("refuses to send a company token to a plain-HTTP proxy on another machine, and leaves the settings alone", func() {
		original, err := os.ReadFile(settings)
		Expect(err).NotTo(HaveOccurred())
		s := keygate([]string{"KEYGATE_PROXY_TOKEN=secret-token"}, "cursor", "setup",
			"--settings", settings, "--proxy", "proxy.corp.example:7879", "--ca-cert", "/etc/corp/root.crt")
		Expect(s).To(gexec.Exit(2))
		Expect(s.Err).To(gbytes.Say(`https://`))
		Expect(string(s.Err.Contents())).NotTo(ContainSubstring("secret-token"))
		Expect(os.ReadFile(settings)).To(Equal(original))
	})

	It("restores the user's settings with --undo", func() {
		original, err := os.ReadFile(settings)
		Expect(err).NotTo(HaveOccurred())
		Expect(keygate(nil, "cursor", "setup", "--settings", settings, "--data-dir", dataDir)).To(gexec.Exit(0))
		s := keygate(nil, "cursor", "setup", "--undo", "--settings", settings)
		Expect(s).To(gexec.Exit(0))
		Expect(s.Out).To(gbytes.Say(`Removed 4 Keygate settings`))
		Expect(os.ReadFile(settings)).To(Equal(original))
	})

	It("explains its usage when the subcommand is missing", func() {
		s := keygate(nil, "cursor")
		Expect(s).To(gexec.Exit(2))
		Expect(s.Err).To(gbytes.Say(`keygate cursor setup`))
	})
})

var _ = Describe("keygate ca export", func() {
	It("writes the installation's CA certificate, the same one on every call", func() {
		dataDir := filepath.Join(GinkgoT().TempDir(), "data")
		first := keygate(nil, "ca", "export", "--data-dir", dataDir)
		Expect(first).To(gexec.Exit(0))
		Expect(first.Out).To(gbytes.Say(`-----BEGIN CERTIFICATE-----`))
		out := filepath.Join(GinkgoT().TempDir(), "keygate-ca.crt")
		Expect(keygate(nil, "ca", "export", "--data-dir", dataDir, "--out", out)).To(gexec.Exit(0))
		Expect(os.ReadFile(out)).To(Equal(first.Out.Contents()))
		Expect(os.ReadFile(filepath.Join(dataDir, "ca.crt"))).To(Equal(first.Out.Contents()))
	})
})

var _ = Describe("keygate ca adopt", func() {
	It("records the configured company CA as the deployment's, by its fingerprint", func() {
		dataDir := filepath.Join(GinkgoT().TempDir(), "data")
		root, keyPEM, err := ca.Generate(time.Now(), "company root")
		Expect(err).NotTo(HaveOccurred())
		dir := GinkgoT().TempDir()
		cert, key := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key")
		Expect(os.WriteFile(cert, root.CertPEM(), 0o600)).To(Succeed())
		Expect(os.WriteFile(key, keyPEM, 0o600)).To(Succeed())
		s := keygate(nil, "ca", "adopt", "--data-dir", dataDir, "--ca-cert", cert, "--ca-key", key)
		Expect(s).To(gexec.Exit(0))
		Expect(s.Out).To(gbytes.Say(`The deployment's CA is now this one \(fingerprint ` + root.Fingerprint()[:16]))
	})
})
