package threatspec_test

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/config"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

var _ = Describe("Threat 2: a member reaches the console through Keygate's own connections and claims the admin group", Ordered, func() {
	var k *stack
	BeforeAll(func() {
		// The operator's mistakes that made this possible: the console's
		// own address on the pass-through list and loopback allow-listed
		// for self-hosted models. Neither may open Keygate to itself.
		k = startKeygate(func(c *config.Config) {
			c.ProxyPassthrough = append(c.ProxyPassthrough, c.Listen, "127.0.0.1")
			c.EgressAllow = append(c.EgressAllow, "127.0.0.0/8")
		})
	})

	adminHeaders := userHeader + ": " + root.id + "\r\n" + groupsHeader + ": " + adminGroup + "\r\n"

	It("refuses a tunnel to the console even when the pass-through and allow-lists name it, and says whose it is", func() {
		_, _, resp := k.connect(k.Console)
		Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
		Expect(body(resp)).To(ContainSubstring("Keygate's own listener"))
	})

	It("refuses a plain-HTTP configuration change sent through the proxy with the admin group's headers", func() {
		_, _, resp := k.proxyConn("POST http://" + k.Console + controlv1connect.ModelServiceCreateModelProcedure + " HTTP/1.1\r\nHost: " +
			k.Console + "\r\nContent-Type: application/json\r\nContent-Length: 0\r\n" + adminHeaders)
		Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
		Expect(body(resp)).To(ContainSubstring("Keygate's own listener"))
	})

	It("leaves no trace of mallory acting as an administrator", func() {
		status, raw := k.do(root, http.MethodGet, "/auth/audit", "", nil)
		Expect(status).To(Equal(http.StatusOK), raw)
		var log struct {
			Entries []struct{ ActorID, Role, Action string }
		}
		Expect(json.Unmarshal([]byte(raw), &log)).To(Succeed())
		Expect(log.Entries).NotTo(BeEmpty())
		for _, e := range log.Entries {
			if e.ActorID == mallory.id {
				Expect(e.Role).To(Equal("member"), e.Action)
				Expect(e.Action).To(HavePrefix("token."), "her own token is all she changed")
			}
		}
	})

	It("answers mallory as the member she is when she asks the console directly", func() {
		status, raw := k.do(mallory, http.MethodGet, "/auth/me", "", nil)
		Expect(status).To(Equal(http.StatusOK))
		Expect(raw).To(ContainSubstring(`"role":"member"`))
	})
})

var _ = Describe("Threat 7: a member holds Keygate's connections open", Ordered, func() {
	var k *stack
	BeforeAll(func() { k = startKeygate() })

	// closedAtOnce expects the server to close conn well before the
	// listeners' idle timeouts (a minute and more) could explain it.
	closedAtOnce := func(conn net.Conn) {
		GinkgoHelper()
		Expect(conn.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
		_, err := io.Copy(io.Discard, conn)
		Expect(err).NotTo(HaveOccurred(), "io.Copy returns nil at EOF: the proxy closed the connection")
	}

	It("closes the connection of a client the proxy refused for missing credentials", func() {
		conn, err := net.DialTimeout("tcp", k.Proxy, 5*time.Second)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(conn.Close)
		_, err = io.WriteString(conn, "CONNECT api2.cursor.sh:443 HTTP/1.1\r\nHost: api2.cursor.sh:443\r\n\r\n")
		Expect(err).NotTo(HaveOccurred())
		closedAtOnce(conn)
	})

	It("closes the connection of a client refused a destination", func() {
		conn, _, resp := k.connect("db.internal.example:5432")
		Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
		Expect(strings.ToLower(resp.Header.Get("Connection"))).To(Or(Equal("close"), BeEmpty()))
		Expect(resp.Close).To(BeTrue())
		closedAtOnce(conn)
	})
})
