package egress

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"time"
)

// instanceMetadata are the addresses of the cloud's instance metadata
// service (EC2's IPv4 and IPv6 IMDS endpoints), on port 80.
var instanceMetadata = []netip.AddrPort{
	netip.MustParseAddrPort("169.254.169.254:80"),
	netip.MustParseAddrPort("[fd00:ec2::254]:80"),
}

// metadataTimeout bounds each request to the metadata service: it answers
// from the hypervisor in milliseconds, or not at all off a cloud instance.
const metadataTimeout = 5 * time.Second

// InstanceMetadataClient is the one client that may reach the instance
// metadata service, which the policy otherwise refuses (rule 5: link-local).
// It reaches nothing else: it dials only 169.254.169.254:80 and
// [fd00:ec2::254]:80 by address, never through a proxy, follows no
// redirect, and bounds each request to five seconds. Keygate hands it only
// to a cloud provider whose administrator chose the instance-role
// credential source, to fetch that role's credentials.
func (p *Policy) InstanceMetadataClient() *http.Client {
	d := &net.Dialer{Timeout: metadataTimeout}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		ap, err := netip.ParseAddrPort(addr)
		if err != nil || !isInstanceMetadata(ap) {
			return nil, &RefusedError{Dest: addr, Addr: ap, Reason: "only the instance metadata service is reachable through this client"}
		}
		return d.DialContext(ctx, network, ap.String())
	}
	return &http.Client{
		Transport: &http.Transport{DialContext: dial, Proxy: nil, MaxIdleConns: 2, IdleConnTimeout: 30 * time.Second},
		Timeout:   metadataTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return errors.New("the instance metadata service does not redirect")
		},
	}
}

func isInstanceMetadata(ap netip.AddrPort) bool {
	ap = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	for _, m := range instanceMetadata {
		if ap == m {
			return true
		}
	}
	return false
}
