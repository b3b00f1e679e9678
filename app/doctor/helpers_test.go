package doctor_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/ports"
)

// now is the instant certificates are checked at.
var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// fingerprints is an in-memory ports.FingerprintStore.
type fingerprints struct {
	mu sync.Mutex
	m  map[string]string
}

func (f *fingerprints) Fingerprint(_ context.Context, name string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fp, ok := f.m[name]
	if !ok {
		return "", ports.ErrNotFound
	}
	return fp, nil
}

func (f *fingerprints) RecordFingerprint(_ context.Context, name, fp string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]string{}
	}
	if old, ok := f.m[name]; ok {
		return old, nil
	}
	f.m[name] = fp
	return fp, nil
}

func (f *fingerprints) ReplaceFingerprint(_ context.Context, name, old, fp string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	cur, ok := f.m[name]
	switch {
	case !ok:
		return ports.ErrNotFound
	case cur != old:
		return ports.ErrConflict
	}
	f.m[name] = fp
	return nil
}

// certificate is a self-signed certificate made from tmpl, with its key,
// written as PEM files.
type certificate struct {
	cert              *x509.Certificate
	certFile, keyFile string
}

func selfSigned(tmpl *x509.Certificate) certificate {
	GinkgoHelper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	Expect(err).NotTo(HaveOccurred())
	tmpl.SerialNumber = big.NewInt(time.Now().UnixNano())
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	Expect(err).NotTo(HaveOccurred())
	cert, err := x509.ParseCertificate(der)
	Expect(err).NotTo(HaveOccurred())
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	Expect(err).NotTo(HaveOccurred())
	dir := GinkgoT().TempDir()
	c := certificate{cert: cert, certFile: filepath.Join(dir, "cert.pem"), keyFile: filepath.Join(dir, "key.pem")}
	Expect(os.WriteFile(c.certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)).To(Succeed())
	Expect(os.WriteFile(c.keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)).To(Succeed())
	return c
}

// serverCert is a TLS server certificate for names, valid until notAfter.
func serverCert(notAfter time.Time, names ...string) certificate {
	tmpl := &x509.Certificate{Subject: pkix.Name{CommonName: names[0]}, NotBefore: now.Add(-time.Hour), NotAfter: notAfter,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	return selfSigned(tmpl)
}
