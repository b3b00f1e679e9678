package cursorproxy

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"time"

	"go.uber.org/zap"
)

// newPlainForwarder forwards absolute-form plain-HTTP proxy requests
// (GET http://host/...), for the editor's few non-TLS fetches. They are not
// intercepted: Cursor's own API is HTTPS only. Connections go through
// tunnel, so the outbound proxy applies to them too.
func newPlainForwarder(tunnel func(context.Context, string) (net.Conn, error), log *zap.Logger) http.Handler {
	transport := &http.Transport{
		DialContext:     func(ctx context.Context, _, addr string) (net.Conn, error) { return tunnel(ctx, addr) },
		IdleConnTimeout: 90 * time.Second,
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.Host = pr.In.Host
		},
		Transport:     transport,
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			log.Info("plain proxy request", zap.String("host", r.URL.Host), zap.Error(err))
			http.Error(w, "cannot reach "+r.URL.Host, http.StatusBadGateway)
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Scheme != "http" {
			http.Error(w, "only http:// URLs are proxied in absolute form; use CONNECT for https", http.StatusBadRequest)
			return
		}
		rp.ServeHTTP(w, r)
	})
}
