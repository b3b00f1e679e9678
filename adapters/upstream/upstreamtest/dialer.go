package upstreamtest

import (
	"context"
	"errors"
	"fmt"
	"net"
)

// ErrOffLoopback means a spec tried to reach an address outside loopback.
var ErrOffLoopback = errors.New("specs never dial outside 127.0.0.0/8")

// Dialer returns a dial function that connects the host:port keys of routes
// to their loopback addresses, dials other loopback addresses as they are,
// and refuses everything else, so no spec can reach a real network.
func Dialer(routes map[string]string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if to, ok := routes[addr]; ok {
			addr = to
		}
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", addr, err)
		}
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("dial %s: %w", addr, ErrOffLoopback)
		}
		return d.DialContext(ctx, network, addr)
	}
}
