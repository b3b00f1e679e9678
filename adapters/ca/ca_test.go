package ca_test

import (
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/ca"
)

var start = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// verify checks that the leaf for host chains to auth at time at.
func verify(auth *ca.Authority, leaves *ca.Leaves, host string, at time.Time) error {
	c, err := leaves.Leaf(host)
	if err != nil {
		return err
	}
	_, err = c.Leaf.Verify(x509.VerifyOptions{DNSName: host, Roots: auth.Pool(), CurrentTime: at})
	return err
}

var _ = Describe("ca.LoadOrCreate", func() {
	var dir string

	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("generates the installation root on first start with the key readable by its owner only", func() {
		auth, created, err := ca.LoadOrCreate(dir, start)
		Expect(err).NotTo(HaveOccurred())
		Expect(created).To(BeTrue())
		Expect(auth.Certificate().IsCA).To(BeTrue())
		st, err := os.Stat(filepath.Join(dir, ca.KeyFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Mode().Perm()).To(Equal(os.FileMode(0o600)))
		Expect(os.ReadFile(filepath.Join(dir, ca.CertFile))).To(Equal(auth.CertPEM()))
	})

	It("loads the same root on later starts", func() {
		first, _, err := ca.LoadOrCreate(dir, start)
		Expect(err).NotTo(HaveOccurred())
		again, created, err := ca.LoadOrCreate(dir, start.Add(time.Hour))
		Expect(err).NotTo(HaveOccurred())
		Expect(created).To(BeFalse())
		Expect(again.Certificate().Equal(first.Certificate())).To(BeTrue())
	})

	It("gives each installation its own root", func() {
		a, _, err := ca.LoadOrCreate(dir, start)
		Expect(err).NotTo(HaveOccurred())
		b, _, err := ca.LoadOrCreate(GinkgoT().TempDir(), start)
		Expect(err).NotTo(HaveOccurred())
		Expect(b.Certificate().PublicKey).NotTo(Equal(a.Certificate().PublicKey))
	})

	It("refuses to replace a lone certificate that users may already trust", func() {
		_, _, err := ca.LoadOrCreate(dir, start)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.Remove(filepath.Join(dir, ca.KeyFile))).To(Succeed())
		_, _, err = ca.LoadOrCreate(dir, start)
		Expect(err).To(MatchError(ca.ErrHalfPresent))
	})
})

var _ = Describe("ca.LoadFiles", func() {
	It("loads a company root from PEM files", func() {
		company, keyPEM, err := ca.Generate(start, "Example Corp Root")
		Expect(err).NotTo(HaveOccurred())
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "corp.crt"), company.CertPEM(), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "corp.key"), keyPEM, 0o600)).To(Succeed())
		auth, err := ca.LoadFiles(filepath.Join(dir, "corp.crt"), filepath.Join(dir, "corp.key"))
		Expect(err).NotTo(HaveOccurred())
		Expect(auth.Certificate().Subject.CommonName).To(Equal("Example Corp Root"))
	})

	It("rejects a certificate that cannot sign certificates", func() {
		root, _, err := ca.Generate(start, "root")
		Expect(err).NotTo(HaveOccurred())
		leaf, err := ca.NewLeaves(root, ca.LeafOptions{}).Leaf("api2.cursor.sh")
		Expect(err).NotTo(HaveOccurred())
		keyDER, err := x509.MarshalPKCS8PrivateKey(leaf.PrivateKey)
		Expect(err).NotTo(HaveOccurred())
		_, err = ca.Parse(pemBlock("CERTIFICATE", leaf.Leaf.Raw), pemBlock("PRIVATE KEY", keyDER))
		Expect(err).To(MatchError(ca.ErrNotCA))
	})
})

var _ = Describe("ca.Leaves", func() {
	var (
		auth   *ca.Authority
		now    time.Time
		leaves *ca.Leaves
	)

	BeforeEach(func() {
		var err error
		auth, _, err = ca.Generate(start, "test root")
		Expect(err).NotTo(HaveOccurred())
		now = start
		leaves = ca.NewLeaves(auth, ca.LeafOptions{Size: 2, Validity: 24 * time.Hour, Now: func() time.Time { return now }})
	})

	It("mints a server certificate for the host that chains to the root", func() {
		Expect(verify(auth, leaves, "api2.cursor.sh", start)).To(Succeed())
	})

	It("serves a cached host without minting again, ignoring case and a trailing dot", func() {
		a, err := leaves.Leaf("api2.cursor.sh")
		Expect(err).NotTo(HaveOccurred())
		b, err := leaves.Leaf("API2.cursor.sh.")
		Expect(err).NotTo(HaveOccurred())
		Expect(b).To(BeIdenticalTo(a))
	})

	It("mints once when many connections ask for the same new host at once", func() {
		var wg sync.WaitGroup
		certs := make([]any, 16)
		for i := range certs {
			wg.Go(func() { certs[i], _ = leaves.Leaf("api3.cursor.sh") })
		}
		wg.Wait()
		for _, c := range certs {
			Expect(c).To(BeIdenticalTo(certs[0]))
		}
	})

	It("evicts the least recently used host beyond its size", func() {
		first, _ := leaves.Leaf("a.cursor.sh")
		_, _ = leaves.Leaf("b.cursor.sh")
		_, _ = leaves.Leaf("a.cursor.sh")
		_, _ = leaves.Leaf("c.cursor.sh")
		Expect(leaves.Len()).To(Equal(2))
		again, _ := leaves.Leaf("a.cursor.sh")
		Expect(again).To(BeIdenticalTo(first), "a was used more recently than b")
	})

	It("re-mints a leaf once three quarters of its life are over", func() {
		first, _ := leaves.Leaf("api2.cursor.sh")
		now = start.Add(19 * time.Hour)
		second, err := leaves.Leaf("api2.cursor.sh")
		Expect(err).NotTo(HaveOccurred())
		Expect(second).NotTo(BeIdenticalTo(first))
		Expect(verify(auth, leaves, "api2.cursor.sh", now.Add(23*time.Hour))).To(Succeed())
	})

	It("refuses a request without a host name", func() {
		_, err := leaves.Leaf("")
		Expect(err).To(MatchError(ca.ErrNoHost))
	})

	It("cannot be used by the installation root to impersonate a host outside cursor.sh", func() {
		Expect(verify(auth, leaves, "bank.example", start)).To(MatchError(ContainSubstring("not permitted")))
	})
})

var _ = Describe("Authority.Fingerprint", func() {
	It("names the root by its key: the same after renewing the certificate with that key, another for another key", func() {
		a, keyPEM, err := ca.Generate(start, "Keygate test root")
		Expect(err).NotTo(HaveOccurred())
		Expect(a.Fingerprint()).To(MatchRegexp(`^[0-9a-f]{64}$`))

		block, _ := pem.Decode(keyPEM)
		key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		Expect(err).NotTo(HaveOccurred())
		tmpl := *a.Certificate()
		tmpl.NotAfter = tmpl.NotAfter.Add(365 * 24 * time.Hour)
		der, err := x509.CreateCertificate(rand.Reader, &tmpl, &tmpl, a.Certificate().PublicKey, key)
		Expect(err).NotTo(HaveOccurred())
		renewed, err := ca.Parse(pemBlock("CERTIFICATE", der), keyPEM)
		Expect(err).NotTo(HaveOccurred())
		Expect(renewed.Certificate().Raw).NotTo(Equal(a.Certificate().Raw))
		Expect(renewed.Fingerprint()).To(Equal(a.Fingerprint()))

		other, _, err := ca.Generate(start, "Keygate test root")
		Expect(err).NotTo(HaveOccurred())
		Expect(other.Fingerprint()).NotTo(Equal(a.Fingerprint()))
	})
})

var _ = Describe("Authority.Usable", func() {
	It("passes a host the root may sign for, and fails one its name constraints exclude", func() {
		a, _, err := ca.Generate(start, "Keygate test root")
		Expect(err).NotTo(HaveOccurred())
		Expect(a.Usable("api2.cursor.sh", start)).To(Succeed())
		Expect(a.Usable("github.com", start)).To(MatchError(ContainSubstring("does not verify")))
		Expect(a.Usable("api2.cursor.sh", start.Add(11*365*24*time.Hour))).To(HaveOccurred(), "an expired root")
	})
})
