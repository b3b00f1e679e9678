package app_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"sync/atomic"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/upstream"
	"keygate/app"
	"keygate/app/apptest"
	"keygate/app/config"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// asAdmin signs every request in as an administrator through the trusted
// headers of header sign-in.
type asAdmin struct{}

func (asAdmin) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Egress-User", "root")
	r.Header.Set("X-Egress-Groups", "kg-admins")
	return http.DefaultTransport.RoundTrip(r)
}

var _ = Describe("The outbound policy in the real app graph, in company mode", Ordered, func() {
	const apiKey = "sk-egress-secret-0123456789"
	var (
		models    controlv1connect.ModelServiceClient
		cfg       config.Config
		console   string
		allowed   *providertest.Server
		unlisted  *httptest.Server
		unlistedN atomic.Int32
	)

	BeforeAll(func() {
		allowed = providertest.NewServer()
		DeferCleanup(allowed.Close)
		// Another loopback address, so that allow-listing 127.0.0.1 leaves
		// it out.
		ln, err := net.Listen("tcp", "127.0.0.2:0")
		Expect(err).NotTo(HaveOccurred())
		unlisted = httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		_ = unlisted.Listener.Close()
		unlisted.Listener = ln
		unlisted.Config.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				unlistedN.Add(1)
			}
		}
		unlisted.Start()
		DeferCleanup(unlisted.Close)

		cfg = config.Default()
		cfg.Auth = config.Auth{Mode: string(auth.ModeHeader), UserHeader: "X-Egress-User", GroupsHeader: "X-Egress-Groups",
			TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, AdminGroups: []string{"kg-admins"}}
		cfg.DataDir = filepath.Join(GinkgoT().TempDir(), "data")
		// The console on a port only Run knows, the proxy on one the
		// configuration names: both must end up refused.
		cfg.Listen, cfg.ProxyListen = "127.0.0.1:0", apptest.FreeAddr()
		cfg.LogFormat, cfg.LogLevel = "json", "error"
		cfg.OutboundProxy = "http://127.0.0.1:1"
		// The operator allows the self-hosted model's whole address, which
		// (by mistake) covers the console and the proxy too: they must stay
		// refused.
		cfg.EgressAllow = []string{"127.0.0.1"}
		console = apptest.Start(cfg).Console
		models = controlv1connect.NewModelServiceClient(&http.Client{Transport: asAdmin{}}, "http://"+console)
	})

	// testModel configures a model on baseURL and runs the console's
	// connection test on it. A model the control API refuses to save is
	// reported as the test's error, so the spec holds whichever layer
	// refuses first.
	testModel := func(baseURL string) *controlv1.TestResult {
		GinkgoHelper()
		ctx := context.Background()
		created, err := models.CreateModel(ctx, connect.NewRequest(&controlv1.CreateModelRequest{
			Settings: &controlv1.ModelSettings{DisplayName: "M", ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT,
				BaseUrl: baseURL, ModelId: "fake-gpt"},
			ApiKey: apiKey, Enabled: true,
		}))
		if err != nil {
			return &controlv1.TestResult{Error: err.Error()}
		}
		stream, err := models.TestModel(ctx, connect.NewRequest(&controlv1.TestModelRequest{Id: created.Msg.GetModel().GetId()}))
		Expect(err).NotTo(HaveOccurred())
		defer stream.Close()
		var result *controlv1.TestResult
		for stream.Receive() {
			if r := stream.Msg().GetResult(); r != nil {
				result = r
			}
		}
		Expect(stream.Err()).NotTo(HaveOccurred())
		Expect(result).NotTo(BeNil())
		return result
	}

	It("reaches a self-hosted model the operator allow-listed", func() {
		allowed.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "r", Text: providertest.Words("1 2 3")})))
		res := testModel(allowed.URL + "/v1")
		Expect(res.GetError()).To(BeEmpty())
		Expect(res.GetOk()).To(BeTrue())
		Expect(allowed.Requests()).To(HaveLen(1))
	})

	It("fails a model on the cloud metadata address with a clear provider error, refused before any socket connects", func() {
		res := testModel("http://169.254.169.254/latest/v1")
		Expect(res.GetOk()).To(BeFalse())
		Expect(res.GetError()).To(And(ContainSubstring("169.254.169.254:80"), ContainSubstring("refused"),
			ContainSubstring("link-local"), ContainSubstring(config.EnvEgressAllow)))
		Expect(res.GetError()).NotTo(ContainSubstring(apiKey))
		Expect(res.GetError()).NotTo(ContainSubstring("check the model id"), "nothing reached a provider to reject it")

		_, err := models.DiscoverModels(context.Background(), connect.NewRequest(&controlv1.DiscoverModelsRequest{
			ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: "http://169.254.169.254/latest", ApiKey: apiKey}))
		Expect(err).To(MatchError(And(ContainSubstring("169.254.169.254:80"), ContainSubstring(config.EnvEgressAllow))))
		// The base URL is checked by the policy before anything is dialled,
		// so the refusal is the field's: the allow-list decides, not the
		// provider.
		Expect(connect.CodeOf(err)).To(Equal(connect.CodeInvalidArgument))
		Expect(err.Error()).NotTo(ContainSubstring(apiKey))
	})

	It("refuses a private server nobody allow-listed, which sees no connection", func() {
		res := testModel(unlisted.URL + "/v1")
		Expect(res.GetError()).To(And(ContainSubstring(unlisted.Listener.Addr().String()), ContainSubstring("loopback"),
			ContainSubstring(config.EnvEgressAllow)))
		Expect(unlistedN.Load()).To(BeZero())
	})

	It("never reaches Keygate's own console or proxy, though the allow-list names them", func() {
		for _, own := range []string{console, cfg.ProxyListen} {
			res := testModel("http://" + own + "/v1")
			Expect(res.GetError()).To(And(ContainSubstring(own), ContainSubstring("Keygate's own listener")), own)
		}
	})
})

var _ = Describe("NewEgress", func() {
	It("refuses the database of the database URL (every host) and the configured listeners, on a laptop too", func() {
		ctx := context.Background()
		gate, err := auth.New(ctx, auth.Config{Mode: auth.ModeLocal}, nil, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		cfg := config.Config{Listen: "127.0.0.1:7878", ProxyListen: ":7879", AgentListen: "[::1]:47321",
			DatabaseURL: "postgres://keygate:pw@127.0.0.1:5433,db-replica.invalid:6432/keygate?sslmode=disable"}
		policy, err := app.NewEgress(ctx, cfg, gate, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		for _, dest := range []string{"127.0.0.1:5433", "localhost:5433", "db-replica.invalid:6432", "127.0.0.1:7878", "127.0.0.1:7879", "[::1]:47321"} {
			Expect(policy.CheckProxied(ctx, dest)).To(MatchError(ContainSubstring("Keygate's own listener or database")), dest)
		}
		Expect(policy.CheckProxied(ctx, "localhost:11434")).To(Succeed(), "a developer's model server")
		Expect(policy.CheckURL(ctx, "http://localhost:5433")).To(MatchError(ContainSubstring("own listener or database")))
	})

	It("makes the sign-in gate distrust every connection the policy dialled, even from a trusted address", func() {
		ctx := context.Background()
		gate, err := auth.New(ctx, auth.Config{Mode: auth.ModeHeader, UserHeader: "X-Egress-User", GroupsHeader: "X-Egress-Groups",
			TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}, nil, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		// A console Keygate does not know as its own (behind a load
		// balancer address that keeps the source, say), allow-listed.
		console := httptest.NewServer(gate.Guard(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "signed in")
		})))
		DeferCleanup(console.Close)
		u, err := url.Parse(console.URL)
		Expect(err).NotTo(HaveOccurred())
		policy, err := app.NewEgress(ctx, config.Config{EgressAllow: []string{u.Host}}, gate, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())

		signIn := func(hc *http.Client) int {
			GinkgoHelper()
			req, err := http.NewRequest(http.MethodGet, console.URL, nil)
			Expect(err).NotTo(HaveOccurred())
			req.Header.Set("X-Egress-User", "root")
			req.Header.Set("X-Egress-Groups", "kg-admins")
			resp, err := hc.Do(req)
			Expect(err).NotTo(HaveOccurred())
			_ = resp.Body.Close()
			return resp.StatusCode
		}
		Expect(signIn(http.DefaultClient)).To(Equal(http.StatusOK), "the authenticating proxy on loopback is trusted")
		Expect(signIn(policy.HTTPClient())).To(Equal(http.StatusForbidden), "Keygate's own connection is not")
	})
})

var _ = Describe("The forward proxy on a laptop, through the outbound policy", Ordered, func() {
	var (
		console, proxyAddr string
		developer          *httptest.Server
	)

	BeforeAll(func() {
		developer = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("developer's server"))
		}))
		DeferCleanup(developer.Close)
		cfg := config.Default()
		cfg.DataDir = filepath.Join(GinkgoT().TempDir(), "data")
		cfg.Listen, cfg.ProxyListen = "127.0.0.1:0", apptest.FreeAddr()
		cfg.LogFormat, cfg.LogLevel = "json", "error"
		cfg.OutboundProxy = upstream.ProxyDirect
		k := apptest.Start(cfg)
		console, proxyAddr = k.Console, k.Proxy
	})

	// connect asks the proxy for a tunnel to target and returns the status
	// line.
	connect := func(target string) string {
		GinkgoHelper()
		c, err := net.Dial("tcp", proxyAddr)
		Expect(err).NotTo(HaveOccurred())
		defer c.Close()
		_, err = c.Write([]byte("CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n\r\n"))
		Expect(err).NotTo(HaveOccurred())
		resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect})
		Expect(err).NotTo(HaveOccurred())
		return resp.Status
	}

	It("tunnels to a developer's own server on loopback", func() {
		Expect(connect(developer.Listener.Addr().String())).To(HavePrefix("200"))
	})

	It("never tunnels or forwards to Keygate's own console or proxy", func() {
		Expect(connect(console)).NotTo(HavePrefix("200"))
		Expect(connect(proxyAddr)).NotTo(HavePrefix("200"))
		viaProxy := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(&url.URL{Scheme: "http", Host: proxyAddr})}}
		resp, err := viaProxy.Get("http://" + console + "/healthz")
		Expect(err).NotTo(HaveOccurred())
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		Expect(resp.StatusCode).NotTo(Equal(http.StatusOK), string(body))
		Expect(string(body)).NotTo(ContainSubstring(`"status"`))
		resp, err = viaProxy.Get(developer.URL)
		Expect(err).NotTo(HaveOccurred())
		body, _ = io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		Expect(string(body)).To(Equal("developer's server"), "plain forwards to a developer's server work")
	})
})
