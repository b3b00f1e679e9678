package threatspec_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

var _ = Describe("Threat 10: hostile input through the control API and the console", Ordered, func() {
	var (
		k   *stack
		bad *httptest.Server
	)
	// page is what a provider's error page holds: far too long, and with a
	// terminal escape that would repaint an administrator's terminal.
	page := "\x1b[31m" + strings.Repeat("PAGE-BODY ", 2000)
	BeforeAll(func() {
		bad = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":{"message":"` + page + `"}}`))
		}))
		DeferCleanup(bad.Close)
		k = startKeygate(allowEgress(bad.Listener.Addr().String()))
	})

	settings := func(tune func(*controlv1.ModelSettings)) *controlv1.ModelSettings {
		s := &controlv1.ModelSettings{DisplayName: "Edge", ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT,
			BaseUrl: "https://api.example.com/v1", ModelId: "gpt-x"}
		tune(s)
		return s
	}
	modelCount := func() int {
		GinkgoHelper()
		var list controlv1.ListModelsResponse
		k.must(root, controlv1connect.ModelServiceListModelsProcedure, &controlv1.ListModelsRequest{}, &list)
		return len(list.GetModels())
	}

	DescribeTable("refuses a model an administrator's session could be used to save, naming the field and saving nothing",
		func(tune func(*controlv1.ModelSettings), apiKey string, field string) {
			before := modelCount()
			status, raw := k.call(root, controlv1connect.ModelServiceCreateModelProcedure,
				&controlv1.CreateModelRequest{Settings: settings(tune), ApiKey: apiKey}, nil)
			Expect(status).To(BeElementOf(http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusTooManyRequests), raw)
			if field != "" {
				Expect(raw).To(ContainSubstring(field))
			}
			Expect(modelCount()).To(Equal(before))
		},
		Entry("a 10 MiB display name", func(s *controlv1.ModelSettings) { s.DisplayName = strings.Repeat("n", 10<<20) }, "sk-ok-0123456789", ""),
		Entry("a 300 kB display name", func(s *controlv1.ModelSettings) { s.DisplayName = strings.Repeat("n", 300<<10) }, "sk-ok-0123456789", "display_name"),
		Entry("20,000 custom headers", func(s *controlv1.ModelSettings) {
			s.CustomHeaders = map[string]string{}
			for i := range 20000 {
				s.CustomHeaders[fmt.Sprintf("X-H-%d", i)] = "v"
			}
		}, "sk-ok-0123456789", ""),
		Entry("a 5 MiB API key", func(*controlv1.ModelSettings) {}, strings.Repeat("k", 5<<20), ""),
		Entry("a header value that splits into a second header", func(s *controlv1.ModelSettings) {
			s.CustomHeaders = map[string]string{"X-Team": "a\r\nX-Injected: 1"}
		}, "sk-ok-0123456789", "custom_headers"),
		Entry("a Host override", func(s *controlv1.ModelSettings) { s.CustomHeaders = map[string]string{"Host": "internal.corp"} }, "sk-ok-0123456789", "custom_headers"),
		Entry("an Authorization header outside the sealed key", func(s *controlv1.ModelSettings) {
			s.CustomHeaders = map[string]string{"Authorization": "Bearer other"}
		}, "sk-ok-0123456789", "custom_headers"),
		Entry("a base URL on the cloud metadata address", func(s *controlv1.ModelSettings) { s.BaseUrl = "http://169.254.169.254/latest" }, "sk-ok-0123456789", "169.254.169.254"),
		Entry("a base URL on a private address nobody allow-listed", func(s *controlv1.ModelSettings) { s.BaseUrl = "http://10.11.12.13:8000/v1" }, "sk-ok-0123456789", "KEYGATE_EGRESS_ALLOW"),
		Entry("a base URL on Keygate's own database", func(s *controlv1.ModelSettings) { s.BaseUrl = "http://" + k.databaseAddr + "/v1" }, "sk-ok-0123456789", "base_url"),
		Entry("credentials in the base URL", func(s *controlv1.ModelSettings) { s.BaseUrl = "https://user:pass@api.example.com/v1" }, "sk-ok-0123456789", "base_url"),
	)

	It("shows a short, clean reason when a provider answers discovery with an error page, never the page", func() {
		status, raw := k.call(root, controlv1connect.ModelServiceDiscoverModelsProcedure, &controlv1.DiscoverModelsRequest{
			ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: bad.URL + "/v1", ApiKey: "sk-typed-0123456789"}, nil)
		Expect(status).NotTo(Equal(http.StatusOK))
		Expect(raw).To(ContainSubstring("401"))
		Expect(len(raw)).To(BeNumerically("<", 1024))
		Expect(raw).NotTo(ContainSubstring("\x1b"))
		Expect(raw).NotTo(ContainSubstring("\\u001b"))
	})

	It("keeps /metrics closed in company mode when no scrape token is set", func() {
		resp, err := http.Get(k.Base + "/metrics")
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
		Expect(body(resp)).To(ContainSubstring("KEYGATE_METRICS_TOKEN"))
	})

	It("forbids framing the console and running code it did not ship", func() {
		req, err := http.NewRequest(http.MethodGet, k.Base+"/", nil)
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set(userHeader, mallory.id)
		req.Header.Set(groupsHeader, mallory.groups)
		resp, err := http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		page := body(resp)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(page).To(ContainSubstring("<div id=\"root\">"))
		csp := resp.Header.Get("Content-Security-Policy")
		Expect(csp).To(ContainSubstring("frame-ancestors 'none'"))
		Expect(csp).To(ContainSubstring("script-src 'self'"))
		Expect(csp).NotTo(ContainSubstring("unsafe-inline"))
		Expect(resp.Header.Get("X-Frame-Options")).To(Equal("DENY"))
		Expect(resp.Header.Get("X-Content-Type-Options")).To(Equal("nosniff"))
	})

	It("refuses a control request body larger than the limit before reading it all", func() {
		big := bytes.Repeat([]byte(" "), 4<<20)
		status, _ := k.do(root, http.MethodPost, controlv1connect.SettingServiceGetSettingsProcedure, "application/json",
			append(append([]byte("{"), big...), '}'))
		Expect(status).To(BeElementOf(http.StatusRequestEntityTooLarge, http.StatusBadRequest, http.StatusTooManyRequests))
	})
})
