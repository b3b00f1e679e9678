package provider_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/egress"
	"keygate/adapters/egress/egresstest"
	"keygate/adapters/provider"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	"keygate/ports"
)

// countingServer is a loopback server that counts the connections it
// accepted and the requests it got.
type countingServer struct {
	*httptest.Server
	conns, requests atomic.Int32
}

func newCountingServer(h http.HandlerFunc) *countingServer {
	s := &countingServer{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.requests.Add(1)
		h(w, r)
	}))
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.Start()
	DeferCleanup(s.Close)
	return s
}

var _ = Describe("Client.Stream under the outbound policy", func() {
	var recorder *providertest.Recorder
	BeforeEach(func() { recorder = providertest.NewRecorder() })

	// policyClient is the provider client as the composition root builds it
	// in company mode, with loopback allow-listed as an operator would for
	// a self-hosted model, and the Azure host resolving to loopback.
	policyClient := func(allow ...string) *provider.Client {
		p, err := egress.New(context.Background(), egress.Options{Allow: allow, Getenv: func(string) string { return "" },
			Resolver: egresstest.Static(map[string]string{"acme.openai.azure.com": "127.0.0.1"})})
		Expect(err).NotTo(HaveOccurred())
		return provider.New(provider.Options{HTTP: p.HTTPClient(), Recorder: recorder})
	}

	DescribeTable("refuses a redirect to another origin, which receives no request and so none of the credentials",
		func(kind llm.ProviderKind, url func(first string) string, headers map[string]string, secretHeader string) {
			elsewhere := newCountingServer(func(http.ResponseWriter, *http.Request) {})
			sent := make(chan string, 1)
			first := newCountingServer(func(w http.ResponseWriter, r *http.Request) {
				sent <- r.Header.Get(secretHeader)
				http.Redirect(w, r, elsewhere.URL+"/collect", http.StatusTemporaryRedirect)
			})
			client := policyClient("127.0.0.1", "acme.openai.azure.com")
			_, err := client.Stream(context.Background(), ports.ModelCall{CallID: "c", RunID: "r",
				Endpoint: ports.Endpoint{Kind: kind, URL: url(first.URL), APIKey: apiKey, Headers: headers},
				Request:  simpleRequest("m")})
			perr := providerError(err)
			Expect(perr.Class).To(Equal(llm.ErrorBadRequest), "retrying cannot help")
			Expect(perr.Message).To(ContainSubstring("to " + elsewhere.URL + " refused"))
			Expect(sent).To(Receive(Not(BeEmpty())), "the configured origin got %s", secretHeader)
			Expect(perr.Error()).NotTo(ContainSubstring(apiKey))
			Expect(err).To(MatchError(egress.ErrCrossOriginRedirect))
			Expect(first.requests.Load()).To(BeNumerically("==", 1))
			Expect(elsewhere.requests.Load()).To(BeZero())
			Expect(elsewhere.conns.Load()).To(BeZero())
		},
		Entry("Anthropic's x-api-key", llm.ProviderAnthropic,
			func(first string) string { return first + "/v1/messages" }, nil, "X-Api-Key"),
		Entry("Azure's api-key", llm.ProviderOpenAIChat,
			func(first string) string {
				_, port, _ := net.SplitHostPort(first[len("http://"):])
				return "http://acme.openai.azure.com:" + port + "/openai/deployments/d/chat/completions?api-version=2024-10-21"
			}, nil, "Api-Key"),
		Entry("a custom header", llm.ProviderOpenAIResponses,
			func(first string) string { return first + "/v1/responses" }, map[string]string{"X-Tenant-Secret": "t-secret"}, "X-Tenant-Secret"),
	)

	It("refuses the cloud metadata address and an unlisted private server before connecting, as a bad request", func() {
		private := newCountingServer(func(http.ResponseWriter, *http.Request) {})
		client := policyClient()
		for _, url := range []string{"http://169.254.169.254/v1/chat/completions", private.URL + "/v1/chat/completions"} {
			_, err := client.Stream(context.Background(), ports.ModelCall{CallID: "c", RunID: "r",
				Endpoint: ports.Endpoint{Kind: llm.ProviderOpenAIChat, URL: url, APIKey: apiKey},
				Request:  simpleRequest("m")})
			perr := providerError(err)
			Expect(perr.Class).To(Equal(llm.ErrorBadRequest), url)
			Expect(perr.Message).To(ContainSubstring("refused"))
			Expect(perr.Message).To(ContainSubstring(egress.AllowSetting))
			Expect(perr.Error()).NotTo(ContainSubstring(apiKey))
			Expect(err).To(MatchError(egress.ErrRefused))
		}
		Expect(private.conns.Load()).To(BeZero())
	})
})
