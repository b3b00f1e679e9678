package upstreamtest

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"keygate/adapters/ca"
)

// FakeCursor is an HTTPS server that answers for every *.cursor.sh name
// with certificates from its own root, which only clients given Pool trust.
type FakeCursor struct {
	// Addr is the loopback address it listens on.
	Addr string
	// Pool trusts the fake's root.
	Pool *x509.CertPool
	srv  *httptest.Server
}

// NewFakeCursor serves handler over TLS, HTTP/1.1 and HTTP/2.
func NewFakeCursor(handler http.Handler) (*FakeCursor, error) {
	root, _, err := ca.Generate(time.Now(), "Fake Cursor Root")
	if err != nil {
		return nil, fmt.Errorf("fake cursor root: %w", err)
	}
	leaves := ca.NewLeaves(root, ca.LeafOptions{})
	srv := httptest.NewUnstartedServer(handler)
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{GetCertificate: leaves.GetCertificate}
	srv.StartTLS()
	return &FakeCursor{Addr: srv.Listener.Addr().String(), Pool: root.Pool(), srv: srv}, nil
}

// Close stops the server and cuts open connections.
func (f *FakeCursor) Close() {
	f.srv.CloseClientConnections()
	f.srv.Close()
}
