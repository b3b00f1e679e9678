package main_test

import (
	"net/http"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"keygate/adapters/auth"
	"keygate/app/config"
)

var _ = Describe("keygate doctor", func() {
	var dataDir, settings string
	BeforeEach(func() {
		dataDir = filepath.Join(GinkgoT().TempDir(), "data")
		settings = filepath.Join(GinkgoT().TempDir(), "Cursor", "User", "settings.json")
	})

	It("exits 0 on a laptop that keygate serve and keygate cursor setup prepared, printing every check", func() {
		session, base := start(dataDir)
		Eventually(func() int { return status(base + "/readyz") }, 10*time.Second).Should(Equal(http.StatusOK))
		session.Interrupt().Wait(10 * time.Second)
		Expect(keygate(nil, "cursor", "setup", "--settings", settings, "--data-dir", dataDir)).To(gexec.Exit(0))

		s := keygate(nil, "doctor", "--data-dir", dataDir, "--cursor-settings", settings)
		Expect(s).To(gexec.Exit(0), string(s.Out.Contents()))
		out := string(s.Out.Contents())
		for _, line := range []string{"[ok  ] configuration", "[ok  ] database", "[ok  ] secret key", "[ok  ] CA", "[ok  ] proxy TLS",
			"[skip] trusted proxies", "[ok  ] outbound allow-list", "[ok  ] metrics token", "[warn] providers", "[ok  ] Cursor on this machine"} {
			Expect(out).To(ContainSubstring(line))
		}
		Expect(out).To(ContainSubstring(" 0 failed"))
	})

	It("exits 1 when a check fails, printing what failed and its fix", func() {
		s := keygate(nil, "doctor", "--data-dir", dataDir, "--cursor-settings", settings, "--egress-allow", "10.0.0.0/33")
		Expect(s).To(gexec.Exit(1))
		out := string(s.Out.Contents())
		Expect(out).To(ContainSubstring("[FAIL] configuration"))
		Expect(out).To(ContainSubstring("[FAIL] outbound allow-list"))
		Expect(out).To(ContainSubstring("fix: Fix KEYGATE_EGRESS_ALLOW"))
		Expect(out).To(ContainSubstring("[FAIL] Cursor on this machine"))
	})

	It("fails the configuration in company mode with KEYGATE_AGENT_LISTEN set, for the reason keygate serve refuses it", func() {
		company := []string{config.EnvAuthMode + "=" + string(auth.ModeHeader), config.EnvAuthUserHeader + "=X-Forwarded-User",
			config.EnvAuthTrustedProxies + "=127.0.0.1/32"}
		s := keygate(company, "doctor", "--data-dir", dataDir, "--cursor-settings", settings)
		Expect(string(s.Out.Contents())).To(ContainSubstring("[ok  ] configuration"), "the company configuration itself is valid")

		s = keygate(append(company, config.EnvAgentListen+"=127.0.0.1:47321"), "doctor", "--data-dir", dataDir, "--cursor-settings", settings)
		Expect(s).To(gexec.Exit(1))
		out := string(s.Out.Contents())
		Expect(out).To(ContainSubstring("[FAIL] configuration"))
		Expect(out).To(ContainSubstring(`--agent-listen needs the local sign-in mode, not "header"`))
		Expect(out).To(ContainSubstring("cursor.general.disableHttp2"))

		serve := keygate(append(company, config.EnvAgentListen+"=127.0.0.1:47321"), "serve", "--listen", "127.0.0.1:0", "--data-dir", dataDir)
		Expect(serve).To(gexec.Exit(2))
		Expect(string(serve.Err.Contents())).To(ContainSubstring(`--agent-listen needs the local sign-in mode, not "header"`), "the same reason")
	})

	It("exits 2 on arguments it cannot read", func() {
		Expect(keygate(nil, "doctor", "--no-such-flag")).To(gexec.Exit(2))
	})
})
