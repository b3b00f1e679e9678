package cursorproxy_test

import (
	"io"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("A draining proxy", func() {
	It("closes each intercepted connection after its next response, so the client's next request opens a new one (which a load balancer sends elsewhere)", func() {
		peer := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, r.RemoteAddr)
		})
		e := startEnv(envOptions{Routes: map[string]http.Handler{"/aiserver.v1.AiService/GetServerConfig": peer}})
		client := e.Client(nil)
		from := func() string {
			GinkgoHelper()
			resp, err := client.Post("https://api2.cursor.sh/aiserver.v1.AiService/GetServerConfig", "application/proto", nil)
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			return string(body)
		}
		first := from()
		Expect(from()).To(Equal(first), "a kept-alive connection is reused before the drain")

		e.Proxy.Drain()
		Expect(from()).To(Equal(first), "the idle connection still serves the request the client may be sending on it")
		second := from()
		Expect(second).NotTo(Equal(first), "closed after that response")
		Expect(from()).NotTo(Equal(second), "as is every connection after its response")
	})
})
