package threatspec_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/ca"
	"keygate/adapters/pgtest"
	"keygate/adapters/secret"
	"keygate/app"
	"keygate/app/apptest"
	"keygate/app/config"
)

// companyConfig is a company configuration (trusted-header sign-in, as
// startKeygate's) on a temporary data dir whose proxy listens on a free
// loopback port. Cursor's own service sits behind an outbound proxy that
// refuses every connection.
func companyConfig() config.Config {
	cfg := config.Default()
	cfg.Auth = companyAuth()
	cfg.DataDir, cfg.Listen, cfg.ProxyListen = filepath.Join(GinkgoT().TempDir(), "data"), "127.0.0.1:0", apptest.FreeAddr()
	cfg.LogFormat, cfg.LogLevel = "json", "error"
	cfg.OutboundProxy = "http://127.0.0.1:1"
	return cfg
}

// company is a running Keygate: its HTTP listener and its proxy.
type company struct{ *apptest.Keygate }

// runCompany starts the real graph with cfg and waits for both listeners.
func runCompany(cfg config.Config) *company { return &company{apptest.Start(cfg)} }

// as sends one request to the HTTP listener as user (in group groups).
func (c *company) as(user, groups, method, path string, body []byte) (int, []byte) {
	GinkgoHelper()
	req, err := http.NewRequest(method, c.Base+path, bytes.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set(userHeader, user)
	req.Header.Set(groupsHeader, groups)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp.StatusCode, raw
}

// newToken creates a personal gateway token for user and returns its id
// and text.
func (c *company) newToken(user string) (string, string) {
	GinkgoHelper()
	status, raw := c.as(user, "staff", http.MethodPost, "/auth/tokens", []byte(`{"name":"laptop"}`))
	Expect(status).To(Equal(http.StatusCreated), string(raw))
	var out struct {
		Token struct {
			ID string `json:"id"`
		} `json:"token"`
		Secret string `json:"secret"`
	}
	Expect(json.Unmarshal(raw, &out)).To(Succeed())
	return out.Token.ID, out.Secret
}

// companyCA writes a company CA to files, as an operator mounts it, for
// KEYGATE_CA_CERT and KEYGATE_CA_KEY.
func companyCA() (certPath, keyPath string) {
	GinkgoHelper()
	root, keyPEM, err := ca.Generate(time.Now(), "company root")
	Expect(err).NotTo(HaveOccurred())
	dir := GinkgoT().TempDir()
	certPath, keyPath = filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key")
	Expect(os.WriteFile(certPath, root.CertPEM(), 0o600)).To(Succeed())
	Expect(os.WriteFile(keyPath, keyPEM, 0o600)).To(Succeed())
	return certPath, keyPath
}

// rawConnect sends CONNECT target with the token over conn and returns the
// answer.
func rawConnect(conn net.Conn, target, token string) *http.Response {
	GinkgoHelper()
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("cursor:"+token))
	_, err := fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\nProxy-Authorization: %s\r\n\r\n", target, target, auth)
	Expect(err).NotTo(HaveOccurred())
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: http.MethodConnect})
	Expect(err).NotTo(HaveOccurred())
	return resp
}

// serverConfig asks Keygate's GetServerConfig route over an intercepted
// TLS session.
func serverConfig(tc *tls.Conn, br *bufio.Reader) (*http.Response, error) {
	req, _ := http.NewRequest(http.MethodPost, "https://api2.cursor.sh/aiserver.v1.AiService/GetServerConfig", http.NoBody)
	req.Header.Set("Content-Type", "application/proto")
	if err := req.Write(tc); err != nil {
		return nil, err
	}
	resp, err := http.ReadResponse(br, req)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
	}
	return resp, err
}

// leafFiles writes a certificate for host signed by a fresh root, and its
// key, as PEM files; it returns their paths and the root's pool.
func leafFiles(host string) (certPath, keyPath string, roots *x509.CertPool) {
	GinkgoHelper()
	root, _, err := ca.Generate(time.Now(), "company root")
	Expect(err).NotTo(HaveOccurred())
	leaf, err := ca.NewLeaves(root, ca.LeafOptions{}).Leaf(host)
	Expect(err).NotTo(HaveOccurred())
	dir := GinkgoT().TempDir()
	certPath, keyPath = filepath.Join(dir, "proxy.crt"), filepath.Join(dir, "proxy.key")
	var certPEM bytes.Buffer
	for _, der := range leaf.Certificate {
		Expect(pem.Encode(&certPEM, &pem.Block{Type: "CERTIFICATE", Bytes: der})).To(Succeed())
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(leaf.PrivateKey)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(certPath, certPEM.Bytes(), 0o600)).To(Succeed())
	Expect(os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)).To(Succeed())
	return certPath, keyPath, root.Pool()
}

var _ = Describe("Threat 5: gateway tokens cross the company network in clear text", func() {
	It("refuses to start listening beyond loopback in plain HTTP, naming both fixes", func() {
		cfg := companyConfig()
		cfg.ProxyListen = "0.0.0.0:0"
		_, _, err := app.Initialize(context.Background(), cfg)
		Expect(err).To(MatchError(And(
			ContainSubstring("clear text"),
			ContainSubstring(config.EnvProxyTLSCert), ContainSubstring(config.EnvProxyTLSKey),
			ContainSubstring(config.EnvProxyURL+"=https://"),
		)))
	})

	It("starts beyond loopback in plain HTTP behind a TLS terminator, and the console hands out the terminator's https:// URL", func() {
		cfg := companyConfig()
		cfg.ProxyListen = "0.0.0.0:0"
		cfg.ProxyURL = "https://proxy.corp.example:8443"
		kg, cleanup, err := app.Initialize(context.Background(), cfg)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(cleanup)
		Expect(kg).NotTo(BeNil())
		req, _ := http.NewRequest(http.MethodPost, "/keygate.control.v1.SetupService/GetCursorSetup", bytes.NewReader([]byte("{}")))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(userHeader, "ada@corp.test")
		req.Header.Set(groupsHeader, "staff")
		req.RemoteAddr = "127.0.0.1:50000"
		rec := httptest.NewRecorder()
		kg.Handler().ServeHTTP(rec, req)
		Expect(rec.Code).To(Equal(http.StatusOK), rec.Body.String())
		Expect(rec.Body.String()).To(And(
			ContainSubstring(`"proxyUrl":"https://proxy.corp.example:8443"`),
			ContainSubstring(`keygate cursor setup --proxy https://proxy.corp.example:8443`),
		))
	})

	It("speaks TLS with the configured certificate, takes tokens over it, and the console hands out its https:// URL", func() {
		cfg := companyConfig()
		var roots *x509.CertPool
		cfg.ProxyTLSCert, cfg.ProxyTLSKey, roots = leafFiles("127.0.0.1")
		k := runCompany(cfg)

		status, raw := k.as("ada@corp.test", "staff", http.MethodPost, "/keygate.control.v1.SetupService/GetCursorSetup", []byte("{}"))
		Expect(status).To(Equal(http.StatusOK), string(raw))
		Expect(string(raw)).To(ContainSubstring(`"proxyUrl":"https://` + k.Proxy + `"`))

		_, token := k.newToken("ada@corp.test")
		raw0, err := tls.Dial("tcp", k.Proxy, &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"})
		Expect(err).NotTo(HaveOccurred(), "the proxy's own TLS, checked against the company root")
		DeferCleanup(raw0.Close)
		Expect(rawConnect(raw0, "api2.cursor.sh:443", token)).To(HaveHTTPStatus(http.StatusOK))
		tc := tls.Client(raw0, &tls.Config{RootCAs: k.InstallationCA(), ServerName: "api2.cursor.sh"})
		resp, err := serverConfig(tc, bufio.NewReader(tc))
		Expect(err).NotTo(HaveOccurred())
		Expect(resp).To(HaveHTTPStatus(http.StatusOK))
	})

})

var _ = Describe("Threat 8: a revoked gateway token keeps working on the connections opened with it", func() {
	It("cuts an intercepted connection within seconds once its token is revoked on another replica, and a new request on it fails", func(ctx SpecContext) {
		db, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "this spec needs a PostgreSQL server and never skips")
		DeferCleanup(db.Close)
		key := make([]byte, secret.KeySize)
		_, _ = rand.Read(key)
		caCert, caKey := companyCA()
		var replicas [2]*company
		for i := range replicas {
			cfg := companyConfig()
			cfg.DatabaseURL = db.DSN
			cfg.Secrets.Key = secret.EncodeKey(key)
			cfg.CACert, cfg.CAKey = caCert, caKey
			replicas[i] = runCompany(cfg)
		}
		a, b := replicas[0], replicas[1]

		By("opening an intercepted connection with ada's token through the second replica")
		id, token := a.newToken("ada@corp.test")
		conn, err := net.Dial("tcp", b.Proxy)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(conn.Close)
		Expect(rawConnect(conn, "api2.cursor.sh:443", token)).To(HaveHTTPStatus(http.StatusOK))
		tc := tls.Client(conn, &tls.Config{RootCAs: b.InstallationCA(), ServerName: "api2.cursor.sh"})
		br := bufio.NewReader(tc)
		resp, err := serverConfig(tc, br)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp).To(HaveHTTPStatus(http.StatusOK))

		By("revoking the token in the first replica's console")
		status, raw := a.as("ada@corp.test", "staff", http.MethodDelete, "/auth/tokens/"+id, nil)
		Expect(status).To(BeNumerically("<", 300), string(raw))

		By("the second replica closing the connection within seconds")
		Expect(tc.SetReadDeadline(time.Now().Add(15 * time.Second))).To(Succeed())
		_, err = br.ReadByte()
		Expect(err).To(HaveOccurred())
		Expect(err).NotTo(MatchError(os.ErrDeadlineExceeded), "the proxy closed it")
		_, err = serverConfig(tc, br)
		Expect(err).To(HaveOccurred(), "a new request on the connection fails")
	}, SpecTimeout(60*time.Second))
})
