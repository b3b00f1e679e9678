package app

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/egress"
	"keygate/app/config"
)

// NewEgress is the outbound policy every connection Keygate opens on
// someone's behalf goes through (proxy tunnels and plain forwards, the
// Cursor pass-through, provider calls, discovery): public addresses, the
// operator's outbound proxy and what KEYGATE_EGRESS_ALLOW names; on a
// laptop (local sign-in) also loopback and private addresses. Keygate's
// own listeners and its database are refused in every mode; listeners on
// port 0 are added by Run once bound. The sign-in gate is told which
// connections the policy dialled, so that a request arriving on one of
// Keygate's own connections is never trusted, whatever its address.
func NewEgress(ctx context.Context, cfg config.Config, gate *auth.Gate, logger *zap.Logger) (*egress.Policy, error) {
	laptop := gate.Mode() == auth.ModeLocal
	p, err := egress.New(ctx, egressOptions(cfg, laptop))
	if err != nil {
		return nil, fmt.Errorf("outbound policy: %w", err)
	}
	gate.DistrustPeers(p.Originated)
	logger.Info("outbound policy", zap.Bool("private_and_loopback_open", laptop), zap.Strings("allow", cfg.EgressAllow))
	return p, nil
}

// egressOptions are the outbound policy's settings from the configuration:
// Keygate's own listeners and database are refused in every mode.
func egressOptions(cfg config.Config, laptop bool) egress.Options {
	var own []string
	for _, a := range []string{cfg.Listen, cfg.ProxyListen, cfg.AgentListen} {
		if a != "" {
			own = append(own, a)
		}
	}
	own = append(own, databaseAddrs(cfg.DatabaseURL)...)
	return egress.Options{Laptop: laptop, Allow: cfg.EgressAllow, Own: own, OutboundProxy: cfg.OutboundProxy}
}

// databaseAddrs are the host:port addresses of a PostgreSQL URL (every
// host of a multi-host URL); Unix sockets and an unparsable URL (which
// OpenStore reports) give none.
func databaseAddrs(databaseURL string) []string {
	if databaseURL == "" {
		return nil
	}
	pc, err := pgconn.ParseConfig(databaseURL)
	if err != nil {
		return nil
	}
	var out []string
	add := func(host string, port uint16) {
		if host != "" && !strings.HasPrefix(host, "/") && port != 0 {
			out = append(out, net.JoinHostPort(host, strconv.Itoa(int(port))))
		}
	}
	add(pc.Host, pc.Port)
	for _, f := range pc.Fallbacks {
		add(f.Host, f.Port)
	}
	return out
}
