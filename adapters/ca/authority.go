package ca

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"time"
)

// Authority is a root certificate and its signing key.
type Authority struct {
	cert *x509.Certificate
	pem  []byte
	key  crypto.Signer
}

// CertFile and KeyFile are the names of the installation CA inside the data
// directory.
const (
	CertFile = "ca.crt"
	KeyFile  = "ca.key"
)

// rootValidity is how long a generated installation root lives: long enough
// that users rarely have to trust a new one.
const rootValidity = 10 * 365 * 24 * time.Hour

// ErrNotCA means the certificate given as a CA cannot sign certificates.
var ErrNotCA = errors.New("certificate is not a CA")

// Certificate returns the root certificate.
func (a *Authority) Certificate() *x509.Certificate { return a.cert }

// Fingerprint identifies the root among a deployment's replicas: the hex
// SHA-256 of its public key (SubjectPublicKeyInfo), the usual pin. It
// survives renewing the certificate with the same key, which clients that
// trust the root keep trusting, and changes with the key, which they do
// not.
func (a *Authority) Fingerprint() string {
	sum := sha256.Sum256(a.cert.RawSubjectPublicKeyInfo)
	return hex.EncodeToString(sum[:])
}

// CertPEM returns the root certificate in PEM, as users import it.
func (a *Authority) CertPEM() []byte { return append([]byte(nil), a.pem...) }

// Pool returns a pool holding only the root, for clients in specs and tools.
func (a *Authority) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(a.cert)
	return p
}

// Parse builds an Authority from a PEM certificate and a PEM private key
// (PKCS#1, PKCS#8 or SEC 1). The certificate must be a CA allowed to sign
// certificates and must match the key.
func Parse(certPEM, keyPEM []byte) (*Authority, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("parse CA key pair: %w", err)
	}
	cert, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		return nil, fmt.Errorf("parse CA certificate: %w", err)
	}
	if !cert.IsCA || cert.KeyUsage&x509.KeyUsageCertSign == 0 {
		return nil, fmt.Errorf("%s: %w", cert.Subject, ErrNotCA)
	}
	signer, ok := pair.PrivateKey.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("CA key %T: %w", pair.PrivateKey, errors.ErrUnsupported)
	}
	block := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})
	return &Authority{cert: cert, pem: block, key: signer}, nil
}

// Generate creates a new installation root valid from now. It returns the
// Authority and its key in PEM (PKCS#8) for storing.
func Generate(now time.Time, commonName string) (*Authority, []byte, error) {
	return GenerateFor(now, commonName, rootValidity)
}

// GenerateFor is Generate with the root's lifetime given (`keygate ca init`
// makes a company root with it): the same key type and the same name
// constraints, cursor.sh and loopback addresses.
func GenerateFor(now time.Time, commonName string, validity time.Duration) (*Authority, []byte, error) {
	if validity <= 0 {
		return nil, nil, fmt.Errorf("CA validity %s: must be positive", validity)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generate CA key: %w", err)
	}
	serial, err := newSerial()
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName, Organization: []string{"Keygate"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(validity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
		PermittedDNSDomains:   []string{"cursor.sh"},
		PermittedIPRanges: []*net.IPNet{
			{IP: net.IPv4(127, 0, 0, 0).To4(), Mask: net.CIDRMask(8, 32)},
			{IP: net.IPv6loopback, Mask: net.CIDRMask(128, 128)},
		},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("sign CA certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("encode CA key: %w", err)
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	a, err := Parse(certPEM, keyPEM)
	if err != nil {
		return nil, nil, err
	}
	return a, keyPEM, nil
}

// newSerial returns a random 128-bit serial number, as CAs must not reuse
// serials and browsers reject duplicates from one issuer.
func newSerial() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("generate serial: %w", err)
	}
	return n, nil
}
