package metrics_test

import (
	"io"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/metrics"
	"keygate/domain/cursorcloud"
)

var _ = Describe("Cursor cloud counters", func() {
	It("count requests by route and decision, and bytes by direction", func() {
		m := metrics.New(nil)
		r := cursorcloud.Route{Service: "aiserver.v1.AiService", Method: "StreamCpp"}
		m.CursorCloud(cursorcloud.Usage{UserID: "ada", Route: r, Decision: cursorcloud.Passed, Up: 100, Down: 2000})
		m.CursorCloud(cursorcloud.Usage{UserID: "ada", Route: r, Decision: cursorcloud.Passed, Up: 1, Down: 2})
		m.CursorCloud(cursorcloud.Usage{UserID: "bob", Route: r, Decision: cursorcloud.Refused})
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		b, _ := io.ReadAll(rec.Body)
		out := string(b)
		Expect(out).To(ContainSubstring(`keygate_cursor_cloud_requests_total{decision="passed",method="StreamCpp",service="aiserver.v1.AiService"} 2`))
		Expect(out).To(ContainSubstring(`keygate_cursor_cloud_requests_total{decision="refused",method="StreamCpp",service="aiserver.v1.AiService"} 1`))
		Expect(out).To(ContainSubstring(`keygate_cursor_cloud_bytes_total{decision="passed",direction="up",method="StreamCpp",service="aiserver.v1.AiService"} 101`))
		Expect(out).To(ContainSubstring(`keygate_cursor_cloud_bytes_total{decision="passed",direction="down",method="StreamCpp",service="aiserver.v1.AiService"} 2002`))
		Expect(out).NotTo(MatchRegexp(`keygate_cursor_cloud[^\n]*"(ada|bob)"`), "no user ids in labels")
	})
})
