package egress_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/egress"
	"keygate/adapters/egress/egresstest"
)

var _ = Describe("The named view, for a host name a client chose (the Cursor pass-through)", func() {
	ctx := context.Background()

	// inward is a policy whose DNS points a Cursor name at the loopback
	// server srv, an address the allow-list opens for a self-hosted model.
	inward := func(srv *server, allow ...string) *egress.Policy {
		return newPolicy(egress.Options{Allow: allow,
			Resolver: egresstest.Static(map[string]string{"models.cursor.sh": "127.0.0.1", "api2.cursor.sh": "127.0.0.1"})})
	}

	It("does not let an address entry open a name that resolves to it, and connects nothing", func() {
		srv := newServer(nil)
		p := inward(srv, "127.0.0.1:"+srv.port())
		conn, err := p.Named().DialContext(ctx, "tcp", "models.cursor.sh:"+srv.port())
		if conn != nil {
			_ = conn.Close()
		}
		refused := refusal(err, "models.cursor.sh:"+srv.port(), "loopback")
		Expect(refused.Error()).To(ContainSubstring("KEYGATE_EGRESS_ALLOW=models.cursor.sh:"+srv.port()), "the advice names the host, the only entry that opens it")
		Expect(srv.accepted.Load()).To(BeZero())

		By("while the full policy, for an administrator's own destinations, honours the entry")
		conn, err = p.DialContext(ctx, "tcp", "models.cursor.sh:"+srv.port())
		Expect(err).NotTo(HaveOccurred())
		_ = conn.Close()
	})

	It("lets an entry naming the host itself open it", func() {
		srv := newServer(nil)
		for _, entry := range []string{"api2.cursor.sh", "*.cursor.sh", "api2.cursor.sh:" + srv.port()} {
			conn, err := inward(srv, entry).Named().DialContext(ctx, "tcp", "api2.cursor.sh:"+srv.port())
			Expect(err).NotTo(HaveOccurred(), entry)
			_ = conn.Close()
		}
		_, err := inward(srv, "other.cursor.sh").Named().DialContext(ctx, "tcp", "api2.cursor.sh:"+srv.port())
		Expect(err).To(MatchError(egress.ErrRefused), "an entry for another name")
	})

	It("checks IP literals handed to the outbound proxy by the same rules, and leaves names to the proxy", func() {
		p := newPolicy(egress.Options{Allow: []string{"10.0.0.7"}})
		Expect(p.Named().CheckProxied(ctx, "10.0.0.7:443")).To(Succeed(), "an IP literal is the address itself")
		Expect(p.Named().CheckProxied(ctx, "169.254.169.254:80")).To(MatchError(egress.ErrRefused))
		Expect(p.Named().CheckProxied(ctx, "localhost:443")).To(MatchError(egress.ErrRefused))
		Expect(p.Named().CheckProxied(ctx, "api2.cursor.sh:443")).To(Succeed(), "the proxy resolves names itself")
	})
})
