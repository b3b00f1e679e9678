package auth_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/domain/access"
)

// headerGate is a header-mode gate trusting trusted, with the identity
// headers X-Auth-User, X-Auth-Email and X-Auth-Groups.
func headerGate(trusted ...string) *auth.Gate {
	cfg := auth.Config{
		Mode: auth.ModeHeader, UserHeader: "X-Auth-User", NameHeader: "X-Auth-Email", GroupsHeader: "X-Auth-Groups",
		Roles: access.RoleMap{AdminGroups: []string{"keygate-admins"}, MemberGroups: []string{"engineering"}},
	}
	for _, t := range trusted {
		cfg.TrustedProxies = append(cfg.TrustedProxies, netip.MustParsePrefix(t))
	}
	g, err := auth.New(context.Background(), cfg, newBox(), zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	return g
}

// serveLines is serve with header lines in order; a key is stored exactly
// as given (not canonicalised), as code other than net/http may build it.
func serveLines(g *auth.Gate, peer string, lines ...[2]string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, "http://keygate.corp/keygate.control.v1.CallService/ListCalls", nil)
	req.RemoteAddr, req.Host = peer, "keygate.corp"
	for _, l := range lines {
		req.Header[l[0]] = append(req.Header[l[0]], l[1])
	}
	rec := httptest.NewRecorder()
	g.Guard(whoami).ServeHTTP(rec, req)
	return rec
}

var _ = Describe("Header sign-in refuses ambiguity", func() {
	var g *auth.Gate
	BeforeEach(func() { g = headerGate("10.0.0.0/8") })

	DescribeTable("answers 400, naming the header, when an identity header is ambiguous",
		func(want string, lines ...[2]string) {
			rec := serveLines(g, "10.1.2.3:4000", lines...)
			Expect(rec.Code).To(Equal(http.StatusBadRequest))
			Expect(rec.Body.String()).To(ContainSubstring(want))
		},
		Entry("a second user header (the first used to win)", "X-Auth-User appears 2 times",
			[2]string{"X-Auth-User", "ada"}, [2]string{"X-Auth-User", "eve"}, [2]string{"X-Auth-Groups", "engineering"}),
		Entry("a second user header in another casing", "X-Auth-User appears 2 times",
			[2]string{"X-Auth-User", "ada"}, [2]string{"x-auth-user", "eve"}, [2]string{"X-Auth-Groups", "engineering"}),
		Entry("a member's second groups header naming the admin group (they used to merge)", "X-Auth-Groups appears 2 times",
			[2]string{"X-Auth-User", "mallory"}, [2]string{"X-Auth-Groups", "engineering"}, [2]string{"X-Auth-Groups", "keygate-admins"}),
		Entry("a second name header", "X-Auth-Email appears 2 times",
			[2]string{"X-Auth-User", "ada"}, [2]string{"X-Auth-Email", "ada@corp.example"}, [2]string{"X-AUTH-EMAIL", "boss@corp.example"},
			[2]string{"X-Auth-Groups", "engineering"}),
		Entry("two users folded into one line with a comma", "several comma-separated values",
			[2]string{"X-Auth-User", "mallory, ada"}, [2]string{"X-Auth-Groups", "engineering"}),
	)

	It("still signs in a member whose single headers are plain, a comma in the display name included", func() {
		rec := serveLines(g, "10.1.2.3:4000", [2]string{"X-Auth-User", "ada"}, [2]string{"X-Auth-Email", "Lovelace, Ada"},
			[2]string{"X-Auth-Groups", "engineering"})
		Expect(rec.Code).To(Equal(http.StatusOK))
		Expect(body(rec)).To(Equal(map[string]string{"user": "ada", "name": "Lovelace, Ada", "role": "member"}))
	})

	It("refuses duplicate headers sent in different casings over a real connection", func() {
		local := headerGate("127.0.0.0/8")
		srv := httptest.NewServer(local.Guard(whoami))
		DeferCleanup(srv.Close)
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(conn.Close)
		_, err = fmt.Fprint(conn, "GET /x HTTP/1.1\r\nHost: keygate.corp\r\nx-auth-user: mallory\r\n"+
			"x-auth-groups: engineering\r\nX-AUTH-GROUPS: keygate-admins\r\nConnection: close\r\n\r\n")
		Expect(err).NotTo(HaveOccurred())
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), string(b))
		Expect(string(b)).To(ContainSubstring("X-Auth-Groups appears 2 times"))
	})
})

var _ = Describe("Trusted proxy ranges", func() {
	DescribeTable("New refuses a range that covers everything or spans public addresses, saying which and why",
		func(cidr string) {
			_, err := auth.New(context.Background(), auth.Config{Mode: auth.ModeHeader, UserHeader: "X-User",
				TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix(cidr)}}, newBox(), zap.NewNop())
			Expect(err).To(MatchError(auth.ErrConfig))
			Expect(err.Error()).To(ContainSubstring("trusted proxy range " + cidr))
			Expect(err.Error()).To(ContainSubstring("could sign in as anyone"))
		},
		Entry("every IPv4 address", "0.0.0.0/0"),
		Entry("every IPv6 address", "::/0"),
		Entry("every IPv4 address written IPv4-mapped", "::ffff:0.0.0.0/96"),
		Entry("half the IPv4 internet", "0.0.0.0/1"),
		Entry("10/8 widened by one bit (11/8 is public)", "10.0.0.0/7"),
		Entry("all global IPv6 unicast", "2000::/3"),
	)

	DescribeTable("New accepts ranges up to a whole private block",
		func(cidr string) {
			_, err := auth.New(context.Background(), auth.Config{Mode: auth.ModeHeader, UserHeader: "X-User",
				TrustedProxies: []netip.Prefix{netip.MustParsePrefix(cidr)}}, newBox(), zap.NewNop())
			Expect(err).NotTo(HaveOccurred())
		},
		Entry("10.0.0.0/8", "10.0.0.0/8"),
		Entry("a sidecar on loopback", "127.0.0.1/32"),
		Entry("IPv6 unique local addresses", "fc00::/7"),
	)

	DescribeTable("matches IPv4-mapped IPv6 peers and ranges as the IPv4 addresses they stand for",
		func(trusted, peer string, status int) {
			rec := serve(headerGate(trusted), peer, "keygate.corp", map[string]string{"X-Auth-User": "ada", "X-Auth-Groups": "engineering"})
			Expect(rec.Code).To(Equal(status))
		},
		Entry("a mapped peer inside an IPv4 range is trusted", "10.0.0.0/8", "[::ffff:10.1.2.3]:4000", http.StatusOK),
		Entry("a mapped peer outside an IPv4 range is refused", "10.0.0.0/8", "[::ffff:192.0.2.7]:4000", http.StatusForbidden),
		Entry("an IPv4 peer inside a mapped range is trusted", "::ffff:10.0.0.0/104", "10.1.2.3:4000", http.StatusOK),
		Entry("an IPv4 peer outside a mapped range is refused", "::ffff:10.0.0.0/104", "11.0.0.1:4000", http.StatusForbidden),
		Entry("a mapped peer inside a mapped range is trusted", "::ffff:10.0.0.0/104", "[::ffff:10.9.9.9]:4000", http.StatusOK),
	)
})

// ownConns is a fake record of the connections Keygate dialled.
type ownConns struct {
	mu    sync.Mutex
	conns map[netip.AddrPort]bool
	asked []netip.AddrPort
}

func (o *ownConns) originated(peer, _ netip.AddrPort) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.asked = append(o.asked, peer)
	return o.conns[peer]
}

var _ = Describe("Gate.DistrustPeers", func() {
	var own *ownConns
	BeforeEach(func() {
		own = &ownConns{conns: map[netip.AddrPort]bool{netip.MustParseAddrPort("127.0.0.1:40001"): true}}
	})
	admin := map[string]string{"X-Auth-User": "mallory", "X-Auth-Groups": "keygate-admins"}

	It("refuses, in header mode, a request on a connection Keygate dialled, though its address is a trusted proxy's", func() {
		g := headerGate("127.0.0.0/8")
		g.DistrustPeers(own.originated)
		rec := serve(g, "127.0.0.1:40001", "keygate.corp", admin)
		Expect(rec.Code).To(Equal(http.StatusForbidden))
		Expect(rec.Body.String()).To(ContainSubstring("opened by Keygate itself"))
		By("serving the sidecar proxy's own connections from the same address")
		rec = serve(g, "127.0.0.1:40002", "keygate.corp", admin)
		Expect(rec.Code).To(Equal(http.StatusOK))
		Expect(body(rec)).To(HaveKeyWithValue("role", "admin"))
	})

	It("asks about a dual-stack listener's IPv4-mapped peer in its IPv4 form", func() {
		g := headerGate("127.0.0.0/8")
		g.DistrustPeers(own.originated)
		Expect(serve(g, "[::ffff:127.0.0.1]:40001", "keygate.corp", admin).Code).To(Equal(http.StatusForbidden))
		Expect(own.asked).To(ContainElement(netip.MustParseAddrPort("127.0.0.1:40001")))
	})

	It("refuses Keygate's own connections in local mode too, where loopback would otherwise be the administrator", func() {
		g, err := auth.New(context.Background(), auth.Config{Mode: auth.ModeLocal}, newBox(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		g.DistrustPeers(own.originated)
		Expect(serve(g, "127.0.0.1:40001", "127.0.0.1:7878", nil).Code).To(Equal(http.StatusForbidden))
		Expect(serve(g, "127.0.0.1:40002", "127.0.0.1:7878", nil).Code).To(Equal(http.StatusOK))
	})
})
