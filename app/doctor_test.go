package app_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/ca"
	"keygate/adapters/cursorproxy/setup"
	"keygate/adapters/pgtest"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/secret"
	"keygate/app"
	"keygate/app/config"
	"keygate/app/doctor"
)

// pemFiles writes a certificate and its key as PEM files.
func pemFiles(certDER []byte, key any) (certFile, keyFile string) {
	GinkgoHelper()
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	Expect(err).NotTo(HaveOccurred())
	dir := GinkgoT().TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	Expect(os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: certDER}), 0o600)).To(Succeed())
	Expect(os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)).To(Succeed())
	return certFile, keyFile
}

// signed is a certificate from tmpl, signed by parent's key (self-signed
// when parent is nil).
func signed(tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) ([]byte, *ecdsa.PrivateKey) {
	GinkgoHelper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	tmpl.SerialNumber = big.NewInt(time.Now().UnixNano())
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	Expect(err).NotTo(HaveOccurred())
	return der, key
}

// proxyCert is the proxy's TLS certificate for name.
func proxyCert(name string) (certFile, keyFile string) {
	der, key := signed(&x509.Certificate{Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(365 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, nil, nil)
	return pemFiles(der, key)
}

// constrainedCA is a company CA as Keygate generates one: name-constrained
// to cursor.sh and loopback.
func constrainedCA() (certFile, keyFile string) {
	GinkgoHelper()
	a, keyPEM, err := ca.Generate(time.Now(), "corp cursor root")
	Expect(err).NotTo(HaveOccurred())
	dir := GinkgoT().TempDir()
	certFile, keyFile = filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key")
	Expect(os.WriteFile(certFile, a.CertPEM(), 0o600)).To(Succeed())
	Expect(os.WriteFile(keyFile, keyPEM, 0o600)).To(Succeed())
	return certFile, keyFile
}

// keyFile writes a fresh secret key.
func keyFile() string {
	GinkgoHelper()
	path := filepath.Join(GinkgoT().TempDir(), "secret.key")
	Expect(os.WriteFile(path, []byte(secret.EncodeKey(secret.NewKey())), 0o600)).To(Succeed())
	return path
}

// statuses are the report's verdicts by check name.
func statuses(r doctor.Report) map[string]string {
	out := map[string]string{}
	for _, l := range r {
		out[l.Name] = l.Status.String()
	}
	return out
}

// freePort is a free loopback address.
func freePort() string {
	GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer ln.Close()
	return ln.Addr().String()
}

var _ = Describe("keygate doctor's checks on a company deployment on PostgreSQL", func() {
	const proxyURL = "https://proxy.corp.example:8443"
	var (
		good     config.Config
		provider *providertest.Server
		settings string
	)

	BeforeEach(func(ctx SpecContext) {
		db, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "these specs need a PostgreSQL server and never skip")
		DeferCleanup(db.Close)
		provider = providertest.NewServer()
		DeferCleanup(provider.Close)

		By("configuring a deployment as an operator should")
		good = config.Default()
		good.DataDir = filepath.Join(GinkgoT().TempDir(), "data")
		good.Listen, good.ProxyListen, good.ProxyURL = "127.0.0.1:0", freePort(), proxyURL
		good.ProxyTLSCert, good.ProxyTLSKey = proxyCert("proxy.corp.example")
		good.DatabaseURL = db.DSN
		good.Auth = config.Auth{Mode: "header", UserHeader: "X-User", GroupsHeader: "X-Groups",
			TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, AdminGroups: []string{"admins"}}
		good.Secrets.KeyFile = keyFile()
		good.CACert, good.CAKey = constrainedCA()
		good.MetricsToken = "scrape-secret"
		good.EgressAllow = []string{provider.Listener.Addr().String()}
		good.OutboundProxy = "direct"
		good.LogLevel = "error"
		Expect(good.Validate()).To(Succeed())

		By("starting a replica once, which migrates the database and records the key and the CA, and adding a model through its console")
		kg, cleanup, err := app.Initialize(context.Background(), good)
		Expect(err).NotTo(HaveOccurred())
		body, _ := json.Marshal(map[string]any{
			"settings": map[string]any{"displayName": "Fake GPT", "providerKind": "PROVIDER_KIND_OPENAI_CHAT", "baseUrl": provider.URL, "modelId": "fake-gpt"},
			"apiKey":   "sk-doctor-0123456789", "enabled": true,
		})
		req := httptest.NewRequest(http.MethodPost, "/keygate.control.v1.ModelService/CreateModel", bytes.NewReader(body))
		req.RemoteAddr = "127.0.0.1:40000"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-User", "root@corp.example")
		req.Header.Set("X-Groups", "admins")
		rec := httptest.NewRecorder()
		kg.Handler().ServeHTTP(rec, req)
		Expect(rec.Code).To(Equal(http.StatusOK), rec.Body.String())
		cleanup()

		By("pointing this machine's Cursor at the proxy")
		settings = filepath.Join(GinkgoT().TempDir(), "settings.json")
		_, err = setup.Apply(settings, "https://keygate:kg_token@proxy.corp.example:8443")
		Expect(err).NotTo(HaveOccurred())
	})

	run := func(cfg config.Config, problems []error) doctor.Report {
		GinkgoHelper()
		checks, cleanup := app.DoctorChecks(cfg, problems, app.DoctorOptions{CursorSettings: settings})
		DeferCleanup(cleanup)
		return doctor.Run(context.Background(), checks, 30*time.Second)
	}

	It("passes every check of a good configuration, testing each model through the outbound policy", func() {
		provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{Text: providertest.Words("1 2 3")})))
		r := run(good, nil)
		Expect(statuses(r)).To(Equal(map[string]string{
			"configuration": "ok", "database": "ok", "secret key": "ok", "CA": "ok", "proxy TLS": "ok",
			"trusted proxies": "ok", "outbound allow-list": "ok", "metrics token": "ok", "provider: Fake GPT": "ok",
			"Cursor on this machine": "ok",
		}), "%v", r)
		Expect(r.Failed()).To(BeZero())
		Expect(provider.Requests()).To(HaveLen(1), "one connection test")
	})

	It("fails each broken part of a configuration with its fix, and changes nothing recorded", func() {
		bad := good
		bad.Secrets.KeyFile = keyFile()
		caDER, caKey := signed(&x509.Certificate{Subject: pkix.Name{CommonName: "corp root"}, NotBefore: time.Now().Add(-time.Hour),
			NotAfter: time.Now().Add(365 * 24 * time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}, nil, nil)
		bad.CACert, bad.CAKey = pemFiles(caDER, caKey)
		bad.ProxyTLSCert, bad.ProxyTLSKey = proxyCert("other.corp.example")
		bad.Auth.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0")}
		bad.EgressAllow = []string{"10.0.0.0/33"}
		bad.MetricsToken = ""
		_, err := setup.Apply(settings, "https://keygate:kg_token@old-proxy.corp.example:8443")
		Expect(err).NotTo(HaveOccurred())

		r := run(bad, []error{bad.Validate()})
		Expect(statuses(r)).To(Equal(map[string]string{
			"configuration": "FAIL", "database": "ok", "secret key": "FAIL", "CA": "FAIL", "proxy TLS": "FAIL",
			"trusted proxies": "FAIL", "outbound allow-list": "FAIL", "metrics token": "warn",
			"providers": "skip", "Cursor on this machine": "FAIL",
		}), "%v", r)
		for _, l := range r {
			if l.Status == doctor.Fail {
				Expect(l.Fix).NotTo(BeEmpty(), l.Name)
			}
		}
		Expect(provider.Requests()).To(BeEmpty())

		By("leaving the deployment's record alone: the good configuration still passes")
		_, err = setup.Apply(settings, "https://keygate:kg_token@proxy.corp.example:8443")
		Expect(err).NotTo(HaveOccurred())
		provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{Text: providertest.Words("1 2 3")})))
		Expect(run(good, nil).Failed()).To(BeZero())
	})

	It("fails a model the provider refuses, and one whose stored key this configuration's secret key cannot open", func() {
		provider.Enqueue(providertest.Status(401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`))
		r := run(good, nil)
		Expect(statuses(r)).To(HaveKeyWithValue("provider: Fake GPT", "FAIL"))
		Expect(r[len(r)-2].Detail).To(ContainSubstring("401"))

		other := good
		other.Secrets.KeyFile = keyFile()
		r = run(other, nil)
		Expect(statuses(r)).To(HaveKeyWithValue("provider: Fake GPT", "FAIL"))
		Expect(provider.Requests()).To(HaveLen(1), "a key this configuration cannot open is never sent")
	})

	It("fails a database it cannot reach and skips what needs it", func() {
		bad := good
		bad.DatabaseURL = "postgres://keygate@" + freePort() + "/keygate?sslmode=disable&connect_timeout=2"
		r := run(bad, nil)
		s := statuses(r)
		Expect(s["database"]).To(Equal("FAIL"))
		Expect(s["secret key"]).To(Equal("skip"))
		Expect(s["providers"]).To(Equal("skip"))
		for _, l := range r {
			Expect(l.Detail).NotTo(ContainSubstring("scrape-secret"))
		}
	})
})

var _ = Describe("keygate doctor's checks on a laptop before its first start", func() {
	It("generates and migrates nothing", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "data")
		cfg := config.Default()
		cfg.DataDir = dir
		checks, cleanup := app.DoctorChecks(cfg, nil, app.DoctorOptions{CursorSettings: filepath.Join(GinkgoT().TempDir(), "none.json")})
		defer cleanup()
		r := doctor.Run(context.Background(), checks, 10*time.Second)
		Expect(statuses(r)).To(HaveKeyWithValue("database", "warn"))
		Expect(statuses(r)).To(HaveKeyWithValue("secret key", "skip"))
		Expect(statuses(r)).To(HaveKeyWithValue("Cursor on this machine", "FAIL"))
		_, err := os.Stat(dir)
		Expect(errors.Is(err, os.ErrNotExist)).To(BeTrue(), "the data directory is not created")
	})
})
