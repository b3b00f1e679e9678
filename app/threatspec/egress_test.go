package threatspec_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/app/config"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// loopbackSecret is what a loopback-only service answers: a member must
// never read it.
const loopbackSecret = "loopback-only: the build server's deploy token"

// recordingProxy is the operator's outbound proxy: it records every target
// it is asked for and, as a real proxy would after resolving the name,
// connects to loopback for every host the spec knows means 127.0.0.1; the
// one public page it serves proves the fetches do go through it.
type recordingProxy struct {
	*httptest.Server
	mu    sync.Mutex
	asked []string
}

func newRecordingProxy(loopbackForms map[string]bool) *recordingProxy {
	p := &recordingProxy{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, port, err := net.SplitHostPort(r.Host)
		if err != nil {
			host, port = r.Host, "80"
		}
		p.mu.Lock()
		p.asked = append(p.asked, r.Method+" "+r.Host)
		p.mu.Unlock()
		if !loopbackForms[host] {
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<html><body><h1>Public page</h1><p>Served by the outbound proxy.</p></body></html>")
			return
		}
		if r.Method == http.MethodConnect {
			tunnel(w, "127.0.0.1:"+port)
			return
		}
		resp, err := http.Get("http://127.0.0.1:" + port + r.URL.RequestURI())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		_, _ = io.Copy(w, io.LimitReader(resp.Body, 1<<20))
	}))
	DeferCleanup(p.Close)
	return p
}

// tunnel answers a CONNECT with a TCP tunnel to addr.
func tunnel(w http.ResponseWriter, addr string) {
	up, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer up.Close()
	w.WriteHeader(http.StatusOK)
	conn, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	go func() { _, _ = io.Copy(up, rw) }()
	_, _ = io.Copy(conn, up)
}

func (p *recordingProxy) Asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.asked...)
}

var _ = Describe("Threat 17: a member hands the outbound proxy an IP literal in another form", Ordered, func() {
	var (
		k        *stack
		proxy    *recordingProxy
		loopback *httptest.Server
		port     string
	)
	// Every form of 127.0.0.1 the probe reached the proxy with, and
	// the metadata address in decimal.
	forms := []string{"2130706433", "0x7f000001", "127.1", "0177.0.0.1", "0", "ip6-localhost", "localhost4", "2852039166"}

	BeforeAll(func() {
		loopback = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, loopbackSecret)
		}))
		DeferCleanup(loopback.Close)
		_, port, _ = net.SplitHostPort(loopback.Listener.Addr().String())
		means := map[string]bool{}
		for _, f := range forms {
			means[f] = true
		}
		proxy = newRecordingProxy(means)
		// The operator routes Keygate through the proxy: the explicit
		// setting and the environment the HTTP clients follow.
		GinkgoT().Setenv("HTTP_PROXY", proxy.URL)
		GinkgoT().Setenv("HTTPS_PROXY", proxy.URL)
		GinkgoT().Setenv("NO_PROXY", "")
		k = startKeygate(func(c *config.Config) { c.OutboundProxy, c.WebFetch = proxy.URL, true })
	})

	// fetches runs one turn as mallory in which the model asks WebFetch for
	// every URL, the member approves each, and returns what the model read
	// back (the provider's next request).
	fetches := func(ctx context.Context, conv string, urls ...string) string {
		GinkgoHelper()
		var calls []providertest.Call
		for i, u := range urls {
			calls = append(calls, providertest.Call{ID: fmt.Sprintf("c_fetch_%d", i), Name: "WebFetch", Arguments: []string{`{"url":"` + u + `"}`}})
		}
		before := len(k.provider.Requests())
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: conv + "-1", Calls: calls})))
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: conv + "-2", Text: providertest.Words("Done.")})))
		ws := cursortest.NewWorkspace(GinkgoT().TempDir())
		ws.Answer = cursortest.Approve
		c := cursortest.NewClient(cursorAPI, k.CursorHTTP(k.memberToken), "req-"+conv)
		c.OnMessage = ws.Handle
		st, err := c.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(st.Close)
		Expect(c.Send(ctx, cursortest.RunRequest(conv, k.modelID, "Read these pages"))).To(Succeed())
		Eventually(func() int { return len(k.provider.Requests()) - before }).WithTimeout(60 * time.Second).Should(Equal(2))
		return string(k.provider.Requests()[before+1].Body)
	}

	It("refuses every form before the proxy is asked, over http and https (CONNECT), and the member reads nothing of the loopback service", func(ctx SpecContext) {
		var urls []string
		for _, f := range forms {
			urls = append(urls, "http://"+f+":"+port+"/", "https://"+f+":"+port+"/")
		}
		read := fetches(ctx, "conv-egress-forms", append(urls, "http://docs.example.test/public")...)

		Expect(read).To(ContainSubstring("Public page"), "the public page came through the proxy, so the forms would have too")
		Expect(read).NotTo(ContainSubstring(loopbackSecret))
		Expect(strings.Count(read, "must be a public address")).To(Equal(len(urls)), "each form refused, saying why")
		// Literal forms name the address they mean; a name (ip6-localhost)
		// does not: Redact never says what a name resolved to.
		for _, want := range []string{"(127.0.0.1)", "(0.0.0.0)", "(169.254.169.254)"} {
			Expect(read).To(ContainSubstring(want), "names the address the form means")
		}
		Expect(proxy.Asked()).To(Equal([]string{"GET docs.example.test"}), "no form reached the proxy")
	}, SpecTimeout(90*time.Second))

	It("refuses a provider base URL, or a discovery, with such a host that an administrator saves", func() {
		for _, f := range []string{"2130706433", "127.1", "0x7f000001", "ip6-localhost"} {
			base := "http://" + f + ":" + port + "/v1"
			status, raw := k.call(root, controlv1connect.ModelServiceCreateModelProcedure, &controlv1.CreateModelRequest{
				Settings: &controlv1.ModelSettings{DisplayName: "Loopback " + f, ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT,
					BaseUrl: base, ModelId: "fake-gpt"},
				ApiKey: "sk-any", Enabled: true,
			}, nil)
			Expect(status).To(Equal(http.StatusBadRequest), raw)
			Expect(raw).To(ContainSubstring("loopback"), base)

			status, raw = k.call(root, controlv1connect.ModelServiceDiscoverModelsProcedure, &controlv1.DiscoverModelsRequest{
				ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: base, ApiKey: "sk-any"}, nil)
			Expect(status).To(Equal(http.StatusBadRequest), raw)
			Expect(raw).NotTo(ContainSubstring(loopbackSecret))
		}
		Expect(proxy.Asked()).To(Equal([]string{"GET docs.example.test"}))
	})
})
