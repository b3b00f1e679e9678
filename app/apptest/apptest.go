package apptest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app"
	"keygate/app/config"
)

// Keygate is a running Keygate: its HTTP listener (console, control API,
// account routes) and its Cursor proxy.
type Keygate struct {
	// Config is what it was started with, ports filled in.
	Config config.Config
	// Base is the console's URL (http://host:port); Console its address.
	Base, Console string
	// Proxy is the proxy's address; empty when the proxy is off.
	Proxy string
	// DataDir holds its database (SQLite), installation CA and key.
	DataDir string
}

// Start validates cfg, builds Keygate with app.Initialize, runs it, and
// returns once the HTTP listener and the proxy accept connections. The
// spec's cleanup stops it and waits for Run to return.
func Start(cfg config.Config) *Keygate {
	GinkgoHelper()
	Expect(cfg.Validate()).To(Succeed())
	kg, cleanup, err := app.Initialize(context.Background(), cfg)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(cleanup)

	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- kg.Run(ctx, func(a net.Addr) { ready <- a }) }()
	DeferCleanup(func() {
		cancel()
		Eventually(done).WithTimeout(15 * time.Second).Should(Receive())
	})
	var addr net.Addr
	Eventually(ready).WithTimeout(10 * time.Second).Should(Receive(&addr))
	if cfg.ProxyListen != "" {
		// The proxy's Run reports no address: wait until it answers.
		Eventually(func() error {
			c, err := net.Dial("tcp", cfg.ProxyListen)
			if err == nil {
				_ = c.Close()
			}
			return err
		}).WithTimeout(10 * time.Second).Should(Succeed())
	}
	return &Keygate{Config: cfg, Base: "http://" + addr.String(), Console: addr.String(), Proxy: cfg.ProxyListen, DataDir: cfg.DataDir}
}

// FreeAddr is a loopback address nothing listens on yet, for a listener
// whose bound address Keygate does not report (the proxy).
func FreeAddr() string {
	GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer ln.Close()
	return ln.Addr().String()
}

// InstallationCA is the pool a developer's machine trusts for the hosts
// the proxy intercepts: the CA Keygate serves at /ca.crt (the
// installation's, or the company's when one is configured), fetched as a
// developer fetches it.
func (k *Keygate) InstallationCA() *x509.CertPool {
	GinkgoHelper()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(k.Base + "/ca.crt")
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	Expect(resp.StatusCode).To(Equal(http.StatusOK))
	pem, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	Expect(err).NotTo(HaveOccurred())
	pool := x509.NewCertPool()
	Expect(pool.AppendCertsFromPEM(pem)).To(BeTrue())
	return pool
}

// CursorHTTP is how a developer's Cursor reaches Keygate: http.proxy set to
// Keygate's proxy, with the personal gateway token as the proxy password
// when token is not empty (company mode), trusting the installation CA.
func (k *Keygate) CursorHTTP(token string) *http.Client {
	GinkgoHelper()
	proxy := &url.URL{Scheme: "http", Host: k.Proxy}
	if token != "" {
		proxy.User = url.UserPassword("cursor", token)
	}
	// Bounded as Cursor's client is: a connection, a TLS handshake and a
	// response's headers each in seconds (a RunSSE answers its headers at
	// once and then streams for as long as the turn runs).
	tr := &http.Transport{
		Proxy:                 http.ProxyURL(proxy),
		TLSClientConfig:       &tls.Config{RootCAs: k.InstallationCA()},
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		IdleConnTimeout:       90 * time.Second,
	}
	DeferCleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}
