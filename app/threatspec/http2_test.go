package threatspec_test

import (
	"context"
	"net"
	"net/http"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/app"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// Cursor's HTTP/2 client does not honour http.proxy, so a Cursor that keeps
// HTTP/2 on would open AgentService/Run straight at whatever agent URL it is
// given, with no gateway token: an agent listener in company mode would
// have to serve every such request as nobody in particular. Keygate keeps
// company clients on the proxy instead (docs/cursor-protocol.md, "HTTP/2
// ignores the proxy"); these specs hold that line.
var _ = Describe("Threat 13: a member's Cursor keeps HTTP/2 on and reaches an agent listener no gateway token guards", Ordered, func() {
	var k *stack
	BeforeAll(func() { k = startKeygate() })

	It("refuses to start the HTTP/2 agent listener in company mode, naming the Cursor setting that keeps clients on the proxy", func() {
		cfg := companyConfig()
		cfg.AgentListen = "127.0.0.1:0"
		refusal := And(
			ContainSubstring(`--agent-listen needs the local sign-in mode, not "header"`),
			ContainSubstring("no gateway token"),
			ContainSubstring("cursor.general.disableHttp2"),
			ContainSubstring("keygate cursor setup"),
		)
		Expect(cfg.Validate()).To(MatchError(refusal), "keygate serve and keygate doctor refuse it")
		_, cleanup, err := app.Initialize(context.Background(), cfg)
		if cleanup != nil {
			cleanup()
		}
		Expect(err).To(MatchError(refusal), "and so does the graph, should a caller skip Validate")
	})

	It("tells a member's client through the proxy to keep HTTP/2 off, and advertises no agent URL", func(ctx SpecContext) {
		resp, err := aiserverv1connect.NewServerConfigServiceClient(k.CursorHTTP(k.memberToken), cursorAPI).
			GetServerConfig(ctx, connect.NewRequest(&aiserverv1.GetServerConfigRequest{}))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.Msg.GetHttp2Config()).To(Equal(aiserverv1.Http2Config_HTTP2_CONFIG_FORCE_ALL_DISABLED))
		Expect(resp.Msg.GetAgentUrlConfig().GetAgentnUrl()).To(BeEmpty())
	})

	It("answers a client that offers HTTP/2 through the proxy over HTTP/1.1, and its AgentService/Run with failed_precondition before any model call", func(ctx SpecContext) {
		tr := k.CursorHTTP(k.memberToken).Transport.(*http.Transport).Clone()
		tr.ForceAttemptHTTP2 = true
		DeferCleanup(tr.CloseIdleConnections)
		hc := &http.Client{Transport: tr}
		before := len(k.provider.Requests())
		c := cursortest.NewClient(cursorAPI, hc, "req-h2-through-the-proxy")
		rs, err := c.Run(ctx, hc, cursortest.RunRequest("conv-h2-through-the-proxy", k.modelID, "hello"), false)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(rs.Close)
		Eventually(rs.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
		Expect(rs.ProtoMajor).To(Equal(1), "the intercepted TLS offers http/1.1 only")
		Expect(rs.EndError()).To(HaveOccurred())
		Expect(rs.EndError().Code()).To(Equal(connect.CodeFailedPrecondition))
		Expect(k.provider.Requests()).To(HaveLen(before), "no turn started")
	}, SpecTimeout(30*time.Second))

	It("asks for a gateway token on the CONNECT, whatever the client would speak inside the tunnel", func() {
		conn, err := net.Dial("tcp", k.Proxy)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(conn.Close)
		Expect(rawConnect(conn, "api2.cursor.sh:443", "")).To(HaveHTTPStatus(http.StatusProxyAuthRequired))
	})
})
