package cursor_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
)

// selfSigned returns a server certificate for 127.0.0.1 and a pool that
// trusts it.
func selfSigned() (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	Expect(err).NotTo(HaveOccurred())
	leaf, err := x509.ParseCertificate(der)
	Expect(err).NotTo(HaveOccurred())
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

var _ = Describe("NewAgentListener", func() {
	It("serves AgentService/Run over TLS with ALPN h2 only", func() {
		cert, pool := selfSigned()
		srv := cursor.New(cursortest.NewScriptedRunHandler(cursortest.Reply("over tls")),
			cursor.Options{Transport: cursortest.FastTimings()}, zap.NewNop())
		DeferCleanup(func() { Expect(srv.Close(context.Background())).To(Succeed()) })
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		hs := cursor.NewAgentListener(srv, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
		go func() { _ = hs.ServeTLS(ln, "", "") }()
		DeferCleanup(hs.Close)

		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, Protocols: new(http.Protocols)}
		tr.Protocols.SetHTTP2(true)
		DeferCleanup(tr.CloseIdleConnections)
		client := cursortest.NewClient("https://"+ln.Addr().String(), &http.Client{Transport: tr}, newRequestID())
		rs, err := client.Run(context.Background(), &http.Client{Transport: tr}, cursortest.RunRequest("c", "m", "hi"), false)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(rs.Close)
		Eventually(rs.Done()).Should(BeClosed())
		Expect(rs.ProtoMajor).To(Equal(2))
		Expect(rs.Texts()).To(Equal([]string{"over tls"}))
		Expect(rs.EndError()).To(BeNil())

		http1 := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}, Protocols: new(http.Protocols)}
		http1.Protocols.SetHTTP1(true)
		_, err = (&http.Client{Transport: http1}).Get("https://" + ln.Addr().String() + "/agent.v1.AgentService/Run")
		Expect(err).To(HaveOccurred(), "an HTTP/1.1-only client finds no protocol in common")
	})

	It("serves cleartext h2 when given no TLS config", func() {
		srv := cursor.New(cursortest.NewScriptedRunHandler(cursortest.Reply("over h2c")),
			cursor.Options{Transport: cursortest.FastTimings()}, zap.NewNop())
		DeferCleanup(func() { Expect(srv.Close(context.Background())).To(Succeed()) })
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		hs := cursor.NewAgentListener(srv, nil)
		go func() { _ = hs.Serve(ln) }()
		DeferCleanup(hs.Close)

		tr := &http.Transport{Protocols: new(http.Protocols)}
		tr.Protocols.SetUnencryptedHTTP2(true)
		DeferCleanup(tr.CloseIdleConnections)
		hc := &http.Client{Transport: tr}
		rs, err := cursortest.NewClient("http://"+ln.Addr().String(), hc, newRequestID()).Run(context.Background(), hc, cursortest.RunRequest("c", "m", "hi"), false)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(rs.Close)
		Eventually(rs.Done()).Should(BeClosed())
		Expect(rs.Texts()).To(Equal([]string{"over h2c"}))
	})
})
