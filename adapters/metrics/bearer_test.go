package metrics_test

import (
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/metrics"
)

var _ = Describe("RequireBearer", func() {
	h := metrics.RequireBearer("scrape-secret", metrics.New(nil).Handler())
	scrape := func(authorization string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if authorization != "" {
			r.Header.Set("Authorization", authorization)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}

	It("serves the metrics to the scrape token", func() {
		w := scrape("Bearer scrape-secret")
		Expect(w.Code).To(Equal(http.StatusOK))
		Expect(w.Body.String()).To(ContainSubstring("keygate_"))
	})

	DescribeTable("refuses anything else with 401 and says which scheme",
		func(authorization string) {
			w := scrape(authorization)
			Expect(w.Code).To(Equal(http.StatusUnauthorized))
			Expect(w.Header().Get("WWW-Authenticate")).To(HavePrefix("Bearer"))
			Expect(w.Body.String()).NotTo(ContainSubstring("keygate_"))
		},
		Entry("no credentials", ""),
		Entry("a wrong token", "Bearer guess"),
		Entry("the token with another scheme", "Basic scrape-secret"),
	)
})

var _ = Describe("Closed", func() {
	It("refuses every scrape with 403 and the reason, and serves no metric", func() {
		w := httptest.NewRecorder()
		metrics.Closed("set KEYGATE_METRICS_TOKEN").ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		Expect(w.Code).To(Equal(http.StatusForbidden))
		Expect(w.Body.String()).To(ContainSubstring("set KEYGATE_METRICS_TOKEN"))
		Expect(w.Body.String()).NotTo(ContainSubstring("keygate_"))
	})
})
