package egress_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/egress"
)

var _ = Describe("The egress HTTP client", func() {
	var c *http.Client
	BeforeEach(func() {
		c = newPolicy(egress.Options{Allow: []string{"127.0.0.0/8"}}).HTTPClient()
	})

	// credentialed is a provider-like request carrying every kind of
	// secret header Keygate sends.
	credentialed := func(method, url string, body string) *http.Request {
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Authorization", "Bearer sk-openai-secret")
		req.Header.Set("X-Api-Key", "sk-ant-secret")
		req.Header.Set("Api-Key", "azure-secret")
		req.Header.Set("X-Custom-Tenant", "tenant-secret")
		return req
	}

	It("refuses a redirect to another origin before sending anything there, whatever headers it carries", func() {
		elsewhere := newServer(nil)
		first := newServer(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere.URL+"/steal?from=keygate", http.StatusTemporaryRedirect)
		})
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			resp, err := c.Do(credentialed(method, first.URL+"/v1/chat/completions?api-version=1", `{"model":"x"}`))
			if resp != nil {
				_ = resp.Body.Close()
			}
			Expect(err).To(MatchError(egress.ErrCrossOriginRedirect))
			var redirect *egress.RedirectError
			Expect(errors.As(err, &redirect)).To(BeTrue())
			Expect(redirect.Error()).To(ContainSubstring(first.URL))
			Expect(redirect.Error()).To(ContainSubstring(elsewhere.URL))
			Expect(redirect.Error()).NotTo(ContainSubstring("steal"), "origins only, never a path or query")
		}
		Expect(first.Requests()).To(HaveLen(2))
		Expect(elsewhere.Requests()).To(BeEmpty())
		Expect(elsewhere.accepted.Load()).To(BeZero())
	})

	It("counts the same host on another port, or another scheme, as another origin", func() {
		elsewhere := newServer(nil)
		for _, to := range []string{elsewhere.URL, strings.Replace(elsewhere.URL, "http://", "https://", 1)} {
			first := newServer(func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, to, http.StatusFound) })
			resp, err := c.Do(credentialed(http.MethodGet, first.URL, ""))
			if resp != nil {
				_ = resp.Body.Close()
			}
			Expect(err).To(MatchError(egress.ErrCrossOriginRedirect), to)
		}
		Expect(elsewhere.accepted.Load()).To(BeZero())
	})

	It("follows a redirect within the origin with the body and headers, a bounded number of times", func() {
		srv := newServer(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/v1/models":
				http.Redirect(w, r, "/v1/models/", http.StatusPermanentRedirect)
			case "/v1/models/":
				body, _ := io.ReadAll(r.Body)
				_, _ = io.WriteString(w, r.Header.Get("X-Api-Key")+" "+string(body))
			default:
				http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
			}
		})
		resp, err := c.Do(credentialed(http.MethodPost, srv.URL+"/v1/models", "payload"))
		Expect(err).NotTo(HaveOccurred())
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		Expect(string(body)).To(Equal("sk-ant-secret payload"))

		resp, err = c.Do(credentialed(http.MethodGet, srv.URL+"/loop", ""))
		if resp != nil {
			_ = resp.Body.Close()
		}
		Expect(err).To(MatchError(ContainSubstring("stopped after 5 redirects")))
		Expect(len(srv.Requests())).To(Equal(2 + 5))
	})

	It("speaks HTTP/2 with a server that offers it", func() {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, r.Proto)
		}))
		srv.EnableHTTP2 = true
		srv.StartTLS()
		DeferCleanup(srv.Close)
		tr := newPolicy(egress.Options{Allow: []string{"127.0.0.1"}}).Transport()
		tr.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
		DeferCleanup(tr.CloseIdleConnections)
		resp, err := (&http.Client{Transport: tr}).Post(srv.URL, "text/plain", bytes.NewReader(nil))
		Expect(err).NotTo(HaveOccurred())
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		Expect(string(body)).To(Equal("HTTP/2.0"))
	})
})
