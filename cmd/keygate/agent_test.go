package main_test

import (
	"crypto/tls"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"

	"keygate/adapters/auth"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/app/config"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

var agentListening = regexp.MustCompile(`"msg":"agent listening","addr":"(127\.0\.0\.1:\d+)"`)

// h2Client is how a Cursor client that keeps HTTP/2 on reaches the agent
// listener: directly, HTTP/2 only, trusting the installation CA.
func h2Client(dataDir string) *http.Client {
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: installationCA(dataDir), MinVersion: tls.VersionTLS12}, Protocols: new(http.Protocols)}
	tr.Protocols.SetHTTP2(true)
	DeferCleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

var _ = Describe("keygate serve --agent-listen", func() {
	It("advertises its HTTP/2 agent listener in GetServerConfig and runs a turn with a tool round there as the local user", func(ctx SpecContext) {
		provider := providertest.NewServer()
		DeferCleanup(provider.Close)
		dataDir := filepath.Join(GinkgoT().TempDir(), "data")
		session, base := start(dataDir, "--agent-listen", "127.0.0.1:0")
		Eventually(func() int { return status(base + "/readyz") }, 10*time.Second).Should(Equal(http.StatusOK))
		Eventually(session.Err.Contents).Should(MatchRegexp(proxyListening.String()))
		proxy := proxyListening.FindSubmatch(session.Err.Contents())
		Expect(proxy).NotTo(BeNil(), "the proxy logs its address")
		// The listeners start together: the agent's line may come before
		// the one start waited for.
		Eventually(session.Err.Contents).Should(MatchRegexp(agentListening.String()))
		m := agentListening.FindSubmatch(session.Err.Contents())
		Expect(m).NotTo(BeNil(), "the agent listener logs its bound address")
		agentURL := "https://" + string(m[1])

		By("telling the client, through the proxy, to keep HTTP/2 on and open Run at the agent listener")
		cfg, err := aiserverv1connect.NewServerConfigServiceClient(cursorClient(string(proxy[1]), dataDir), "https://api2.cursor.sh").
			GetServerConfig(ctx, connect.NewRequest(&aiserverv1.GetServerConfigRequest{}))
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Msg.GetHttp2Config()).To(Equal(aiserverv1.Http2Config_HTTP2_CONFIG_UNSPECIFIED))
		Expect(cfg.Msg.GetAgentUrlConfig().GetAgentnUrl()).To(Equal(agentURL))

		created := createFakeModel(base, provider.URL, "sk-agent-0123456789")
		scriptReadTurn(provider)

		By("running the turn on AgentService/Run over HTTP/2, straight to the advertised URL")
		ws := notesWorkspace()
		hc := h2Client(dataDir)
		c := cursortest.NewClient(agentURL, hc, "req-agent-h2-1")
		c.OnMessage = ws.Handle
		rs, err := c.Run(ctx, hc, cursortest.RunRequest("conv-agent-h2", created.Model.ID, "What is in notes.txt?"), false)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(rs.Close)
		Eventually(rs.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
		Expect(rs.ProtoMajor).To(Equal(2))
		Expect(rs.ReadError()).NotTo(HaveOccurred())
		Expect(rs.EndError()).To(BeNil())
		Expect(strings.Join(rs.Texts(), "")).To(Equal("Let me read it.It says hello."))
		Expect(ws.Execs()).To(HaveLen(1))
		reqs := provider.Requests()
		Expect(reqs).To(HaveLen(2))
		Expect(string(reqs[1].Body)).To(ContainSubstring("hello from the workspace"))

		By("recording both provider calls under the local user, who sees them in the console")
		Expect(callCount(base)).To(Equal(2))

		By("shutting the agent listener down with the rest on SIGTERM")
		session.Signal(syscall.SIGTERM)
		Eventually(session, 5*time.Second).Should(gexec.Exit(0))
	}, SpecTimeout(60*time.Second))

	It("refuses to start outside the local sign-in mode, where the listener could not tell users apart", func() {
		cmd := exec.Command(binary, "serve", "--listen", "127.0.0.1:0", "--proxy-listen", "127.0.0.1:0",
			"--data-dir", filepath.Join(GinkgoT().TempDir(), "data"), "--agent-listen", "127.0.0.1:0")
		cmd.Env = append(os.Environ(),
			config.EnvAuthMode+"="+string(auth.ModeHeader),
			config.EnvAuthUserHeader+"=X-Forwarded-User",
			config.EnvAuthTrustedProxies+"=127.0.0.1/32")
		session, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { session.Kill().Wait() })
		Eventually(session, 10*time.Second).Should(gexec.Exit(2), "an invalid configuration, as keygate doctor reports it")
		Expect(session.Err).To(gbytes.Say(`--agent-listen needs the local sign-in mode, not "header"`))
		Expect(session.Err).To(gbytes.Say(`cursor.general.disableHttp2`), "the message names the setting a company uses instead")
		Expect(session.Err.Contents()).NotTo(ContainSubstring(`"msg":"listening"`), "no listener was started")
	})
})
