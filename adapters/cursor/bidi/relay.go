package bidi

import (
	"net/http"
	"net/http/httputil"
	"net/url"

	"go.uber.org/zap"
)

// Relay relays a request to Cursor unchanged and streams the answer
// back, flushed per write, as the proxy does for routes Keygate does not
// mount.
func Relay(rt http.RoundTripper, log *zap.Logger) http.Handler {
	base, _ := url.Parse(APIURL)
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// The RoundTripper sends the request to HeaderUpstreamURL
			// when the proxy set it; the base is for requests without it.
			pr.SetURL(base)
			pr.Out.Host = ""
		},
		Transport:     rt,
		FlushInterval: -1,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() != nil {
				return // the client went away
			}
			log.Warn("route not relayed to cursor", zap.String("path", r.URL.Path), zap.Error(err))
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = http.NewResponseController(w).EnableFullDuplex()
		rp.ServeHTTP(w, r)
	})
}
