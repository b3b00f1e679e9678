package control

import "net/http"

// ContentSecurityPolicy fits the built console (console/dist): one module
// script and one stylesheet from the same origin, no inline script or
// style element, calls to the same origin only; React's style props set
// properties through the CSSOM, which style-src does not restrict. Nothing
// may frame the console (clickjacking).
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// SecurityHeaders sets on every response of next the headers that keep a
// browser from framing, sniffing or leaking the console: the CSP above,
// X-Frame-Options for browsers without frame-ancestors, nosniff, and no
// Referer (console URLs name calls and conversations).
func SecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}
