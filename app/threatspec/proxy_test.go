package threatspec_test

import (
	"io"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("Threat 1: a member uses the forward proxy as an open proxy into the company network", Ordered, func() {
	var k *stack
	BeforeAll(func() { k = startKeygate() })

	refused := func(authority string) string {
		GinkgoHelper()
		conn, br, resp := k.connect(authority)
		Expect(resp.StatusCode).To(Equal(http.StatusForbidden), "CONNECT %s", authority)
		text := body(resp)
		By("and the connection is closed, so nothing can follow the refusal")
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := br.ReadByte()
		Expect(err).To(MatchError(io.EOF))
		return text
	}

	It("refuses a tunnel to the PostgreSQL server Keygate itself uses", func() {
		Expect(refused(k.databaseAddr)).To(ContainSubstring(k.databaseAddr))
	})

	It("refuses a tunnel to Keygate's own console port", func() {
		refused(k.Console)
	})

	It("refuses a tunnel to the cloud metadata address", func() {
		refused("169.254.169.254:80")
	})

	It("refuses tunnels into private, shared and loopback ranges and to any port", func() {
		for _, a := range []string{"10.0.0.1:443", "192.168.1.1:443", "172.16.0.1:22", "100.64.0.1:443", "127.0.0.1:6379", "[::1]:5432", "0.0.0.0:443"} {
			refused(a)
		}
	})

	It("refuses a tunnel to a public host that is not on the pass-through list, and says how to allow it", func() {
		Expect(refused("example.com:443")).To(ContainSubstring("KEYGATE_PROXY_PASSTHROUGH"))
	})

	It("refuses a plain-HTTP request through the proxy to the console", func() {
		_, _, resp := k.proxyConn("GET http://" + k.Console + "/auth/me HTTP/1.1\r\nHost: " + k.Console + "\r\n" +
			userHeader + ": " + root.id + "\r\n" + groupsHeader + ": " + adminGroup + "\r\n")
		Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
		Expect(body(resp)).NotTo(ContainSubstring(root.id))
	})
})
