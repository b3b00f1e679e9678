package egress

import (
	"context"
	"net"
)

// Named is the policy's view for connections to a host name a client chose
// within a family of names Keygate trusts, whose DNS answers Keygate does
// not control: the Cursor pass-through, where a member's editor names any
// *.cursor.sh host. It is the full policy except that the allow-list's
// address entries (IPs and CIDR ranges, usually a self-hosted model's)
// do not open such a name that resolves to them: only an entry naming the
// host itself does (api2.cursor.sh, *.cursor.sh). Otherwise a name a
// member's DNS points inward would reach whatever an administrator
// allow-listed for providers, with the member's own headers.
type Named struct{ p *Policy }

// Named returns the named view of p.
func (p *Policy) Named() *Named { return &Named{p: p} }

// DialContext is Policy.DialContext by the named view's rules.
func (v *Named) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return v.p.dial(ctx, network, addr, namedView)
}

// CheckProxied is Policy.CheckProxied by the named view's rules.
func (v *Named) CheckProxied(ctx context.Context, hostport string) error {
	return v.p.checkProxied(ctx, hostport, namedView)
}
