package discovery_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/egress"
	"keygate/adapters/egress/egresstest"
	"keygate/adapters/provider"
	"keygate/adapters/provider/discovery"
	"keygate/domain/llm"
)

var _ = Describe("Lister.List under the outbound policy", func() {
	// lister is discovery as the composition root builds it, in company
	// mode with loopback allow-listed (a self-hosted endpoint) and the
	// Azure host resolving to loopback.
	lister := func() *discovery.Lister {
		p, err := egress.New(context.Background(), egress.Options{Allow: []string{"127.0.0.1", "acme.openai.azure.com"},
			Getenv: func(string) string { return "" }, Resolver: egresstest.Static(map[string]string{"acme.openai.azure.com": "127.0.0.1"})})
		Expect(err).NotTo(HaveOccurred())
		return discovery.New(p.HTTPClient(), provider.Builtin())
	}

	DescribeTable("refuses a redirect to another origin, which receives no request and so none of the credentials",
		func(q discovery.Query, secretHeader string) {
			var elsewhereConns atomic.Int32
			elsewhere := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
			elsewhere.Config.ConnState = func(_ net.Conn, st http.ConnState) {
				if st == http.StateNew {
					elsewhereConns.Add(1)
				}
			}
			elsewhere.Start()
			DeferCleanup(elsewhere.Close)
			sent := make(chan string, 1)
			first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				sent <- r.Header.Get(secretHeader)
				http.Redirect(w, r, elsewhere.URL+"/v1/models", http.StatusFound)
			}))
			DeferCleanup(first.Close)
			_, port, _ := net.SplitHostPort(first.Listener.Addr().String())
			if q.BaseURL == "" {
				q.BaseURL = first.URL + "/v1"
			} else {
				q.BaseURL += ":" + port + "/openai/v1"
			}

			_, err := lister().List(context.Background(), q)
			Expect(err).To(MatchError(egress.ErrCrossOriginRedirect))
			var perr *llm.ProviderError
			Expect(errors.As(err, &perr)).To(BeTrue())
			Expect(perr.Class).To(Equal(llm.ErrorBadRequest))
			Expect(perr.Message).To(ContainSubstring("to " + elsewhere.URL + " refused"))
			Expect(perr.Error()).NotTo(ContainSubstring(q.APIKey))
			Expect(sent).To(Receive(Not(BeEmpty())), "the configured origin got %s", secretHeader)
			Expect(elsewhereConns.Load()).To(BeZero())
		},
		Entry("Anthropic's x-api-key", discovery.Query{Kind: llm.ProviderAnthropic, APIKey: "sk-ant-secret"}, "X-Api-Key"),
		Entry("Azure's api-key", discovery.Query{Kind: llm.ProviderOpenAIChat, BaseURL: "http://acme.openai.azure.com", APIKey: "azure-secret"}, "Api-Key"),
		Entry("a custom header", discovery.Query{Kind: llm.ProviderOpenAIChat, APIKey: "sk-secret", Headers: map[string]string{"X-Tenant-Secret": "t"}}, "X-Tenant-Secret"),
	)

	It("refuses the cloud metadata address with the policy's advice", func() {
		_, err := lister().List(context.Background(), discovery.Query{Kind: llm.ProviderOpenAIChat, BaseURL: "http://169.254.169.254/latest", APIKey: "sk-secret"})
		Expect(err).To(MatchError(egress.ErrRefused))
		Expect(err).To(MatchError(ContainSubstring(egress.AllowSetting)))
		Expect(err.Error()).NotTo(ContainSubstring("sk-secret"))
	})
})
