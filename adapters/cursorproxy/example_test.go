package cursorproxy_test

import (
	"context"
	"net/http"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/ca"
	"keygate/adapters/cursorproxy"
	"keygate/adapters/upstream"
)

// Example shows how the composition root wires the proxy: the installation
// CA from the data directory, the upstream forwarder (outbound proxy from
// configuration or the environment), and the Cursor adapter's routes.
func Example() {
	log := zap.NewNop()
	root, _, err := ca.LoadOrCreate("/var/lib/keygate", time.Now()) // or ca.LoadFiles(companyCert, companyKey)
	if err != nil {
		panic(err)
	}
	fwd, err := upstream.New(upstream.Options{Proxy: ""}, log.Named("upstream"))
	if err != nil {
		panic(err)
	}
	var cursorRoutes map[string]http.Handler // cursor.Server.Routes()
	keygate, isKeygate := cursorproxy.RouteTable(cursorRoutes)
	proxy, err := cursorproxy.New(cursorproxy.Options{
		Addr:          cursorproxy.DefaultAddr,
		Certificate:   ca.NewLeaves(root, ca.LeafOptions{}).Leaf,
		Keygate:       keygate,
		IsKeygatePath: isKeygate,
		Upstream:      fwd,
		Tunnel:        fwd.DialTunnel,
		Auth:          nil, // company mode: a ports.ProxyAuthenticator
	}, log.Named("proxy"))
	if err != nil {
		panic(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go func() { _ = proxy.Run(ctx, nil) }()
}
