package egress_test

import (
	"context"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/egress"
	"keygate/adapters/egress/egresstest"
)

var _ = Describe("The public-only view, for destinations a model chose", func() {
	ctx := context.Background()

	DescribeTable("refuses every non-public address, on a laptop and allow-listed too",
		func(dest, reason string) {
			p := newPolicy(egress.Options{Laptop: true, Allow: []string{"127.0.0.0/8", "10.0.0.0/8", "169.254.169.254", "192.168.0.0/16"}})
			conn, err := p.Public().DialContext(ctx, "tcp", dest)
			if conn != nil {
				_ = conn.Close()
			}
			refused := refusal(err, dest, reason)
			Expect(refused.Public).To(BeTrue())
			Expect(refused.Error()).To(ContainSubstring("must be a public address"))
			Expect(refused.Error()).NotTo(ContainSubstring("KEYGATE_EGRESS_ALLOW="), "no setting opens it")
		},
		Entry("loopback", "127.0.0.1:80", "loopback"),
		Entry("IPv6 loopback", "[::1]:80", "loopback"),
		Entry("the cloud metadata service", "169.254.169.254:80", "link-local"),
		Entry("a private address", "10.0.0.7:80", "private"),
		Entry("a private address, IPv4-mapped", "[::ffff:192.168.1.1]:80", "private"),
		Entry("the unspecified address", "0.0.0.0:80", "unspecified"),
	)

	It("refuses a name that resolves inward, and a name meaning this machine, before any connection", func() {
		srv := newServer(nil)
		p := newPolicy(egress.Options{Laptop: true,
			Resolver: egresstest.Static(map[string]string{"intranet.example": "127.0.0.1"})})
		client := &http.Client{Transport: p.Public().Transport()}
		for _, u := range []string{"http://intranet.example:" + srv.port() + "/", "http://localhost:" + srv.port() + "/"} {
			resp, err := client.Get(u)
			if resp != nil {
				_ = resp.Body.Close()
			}
			Expect(err).To(MatchError(egress.ErrRefused), u)
		}
		Expect(srv.accepted.Load()).To(BeZero())
	})

	It("checks a target handed to the outbound proxy by the same rules", func() {
		p := newPolicy(egress.Options{Laptop: true, Allow: []string{"169.254.169.254"}})
		Expect(p.Public().CheckProxied(ctx, "169.254.169.254:80")).To(MatchError(egress.ErrRefused))
		Expect(p.Public().CheckProxied(ctx, "localhost:80")).To(MatchError(egress.ErrRefused))
		Expect(p.Public().CheckProxied(ctx, "docs.example.com:443")).To(Succeed(), "the proxy resolves names itself")
		Expect(p.CheckProxied(ctx, "169.254.169.254:80")).To(Succeed(), "the operator's view still honours the allow-list")
	})
})
