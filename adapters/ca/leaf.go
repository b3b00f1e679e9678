package ca

import (
	"container/list"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
)

// LeafOptions tune a Leaves cache.
type LeafOptions struct {
	// Size bounds the number of cached hosts (DefaultLeafCacheSize when
	// <= 0). The least recently used host is evicted first.
	Size int
	// Validity is a leaf's lifetime (DefaultLeafValidity when <= 0). A
	// cached leaf is re-minted once less than a quarter of it remains.
	Validity time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Defaults for LeafOptions. Thirty days stays far below every client's cap
// on leaf lifetime, and a proxy that runs longer simply re-mints.
const (
	DefaultLeafCacheSize = 256
	DefaultLeafValidity  = 30 * 24 * time.Hour
)

// ErrNoHost means a leaf was asked for without a host name.
var ErrNoHost = errors.New("no host name to mint a certificate for")

// Leaves mints per-host server certificates from an Authority and caches
// them. It is safe for concurrent use; concurrent requests for one host
// mint once.
type Leaves struct {
	auth *Authority
	opts LeafOptions

	mint singleflight.Group

	mu    sync.Mutex
	order *list.List // of *cachedLeaf, most recent first
	byKey map[string]*list.Element
}

type cachedLeaf struct {
	host    string
	cert    *tls.Certificate
	renewAt time.Time
}

// NewLeaves returns an empty cache over auth.
func NewLeaves(auth *Authority, opts LeafOptions) *Leaves {
	if opts.Size <= 0 {
		opts.Size = DefaultLeafCacheSize
	}
	if opts.Validity <= 0 {
		opts.Validity = DefaultLeafValidity
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Leaves{auth: auth, opts: opts, order: list.New(), byKey: map[string]*list.Element{}}
}

// Len is the number of cached hosts.
func (l *Leaves) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.order.Len()
}

// Leaf returns a certificate for host (a DNS name or an IP address; case and
// a trailing dot are ignored), minting it when the cache has none or the
// cached one is due for renewal.
func (l *Leaves) Leaf(host string) (*tls.Certificate, error) {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return nil, ErrNoHost
	}
	if c := l.cached(host); c != nil {
		return c, nil
	}
	v, err, _ := l.mint.Do(host, func() (any, error) {
		if c := l.cached(host); c != nil {
			return c, nil
		}
		now := l.opts.Now()
		c, err := l.auth.mintLeaf(host, now, l.opts.Validity)
		if err != nil {
			return nil, err
		}
		l.store(host, c, now.Add(l.opts.Validity*3/4))
		return c, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*tls.Certificate), nil
}

// GetCertificate is a tls.Config.GetCertificate that mints for the SNI
// name. Connections without SNI need a fixed host: see ForHost.
func (l *Leaves) GetCertificate(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
	return l.Leaf(hello.ServerName)
}

// ForHost returns a GetCertificate that uses the SNI name when the client
// sent one and fallback (the CONNECT authority's host) otherwise.
func (l *Leaves) ForHost(fallback string) func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		if hello.ServerName != "" {
			return l.Leaf(hello.ServerName)
		}
		return l.Leaf(fallback)
	}
}

func (l *Leaves) cached(host string) *tls.Certificate {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.byKey[host]
	if !ok {
		return nil
	}
	c := e.Value.(*cachedLeaf)
	if !l.opts.Now().Before(c.renewAt) {
		l.order.Remove(e)
		delete(l.byKey, host)
		return nil
	}
	l.order.MoveToFront(e)
	return c.cert
}

func (l *Leaves) store(host string, cert *tls.Certificate, renewAt time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.byKey[host]; ok {
		l.order.Remove(e)
	}
	l.byKey[host] = l.order.PushFront(&cachedLeaf{host: host, cert: cert, renewAt: renewAt})
	for l.order.Len() > l.opts.Size {
		oldest := l.order.Back()
		l.order.Remove(oldest)
		delete(l.byKey, oldest.Value.(*cachedLeaf).host)
	}
}

// mintLeaf signs a serverAuth certificate for host with a fresh P-256 key.
func (a *Authority) mintLeaf(host string, now time.Time, validity time.Duration) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate leaf key: %w", err)
	}
	serial, err := newSerial()
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host, Organization: []string{"Keygate proxy"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(validity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, &key.PublicKey, a.key)
	if err != nil {
		return nil, fmt.Errorf("sign leaf for %s: %w", host, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parse leaf for %s: %w", host, err)
	}
	return &tls.Certificate{Certificate: [][]byte{der, a.cert.Raw}, PrivateKey: key, Leaf: leaf}, nil
}

// Usable mints a leaf for host from a and verifies it against a alone at
// now, as a client that trusts a would: it fails when the root has expired,
// cannot sign, or its name constraints exclude host (keygate doctor).
func (a *Authority) Usable(host string, now time.Time) error {
	leaf, err := a.mintLeaf(host, now, time.Hour)
	if err != nil {
		return err
	}
	cert, err := x509.ParseCertificate(leaf.Certificate[0])
	if err != nil {
		return fmt.Errorf("parse leaf: %w", err)
	}
	if _, err := cert.Verify(x509.VerifyOptions{DNSName: host, Roots: a.Pool(), CurrentTime: now}); err != nil {
		return fmt.Errorf("a certificate it issues for %s does not verify: %w", host, err)
	}
	return nil
}
