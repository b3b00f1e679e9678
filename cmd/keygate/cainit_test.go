package main_test

import (
	"crypto/x509"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"keygate/adapters/ca"
	"keygate/app/doctor"
)

var _ = Describe("keygate ca init", func() {
	var dir, cert, key string
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		cert, key = filepath.Join(dir, "company-ca.crt"), filepath.Join(dir, "company-ca.key")
	})

	It("creates a name-constrained CA, the key mode 0600, and prints the next steps", func() {
		s := quietly("ca", "init", "--cert", cert, "--key", key, "--days", "400", "--name", "Example Corp Keygate CA")
		Expect(s).To(gexec.Exit(0), string(s.Err.Contents()))
		Expect(string(s.Out.Contents())).To(And(
			ContainSubstring("KEYGATE_CA_CERT="+cert),
			ContainSubstring("KEYGATE_CA_KEY="+key),
			ContainSubstring("keygate ca adopt --ca-cert "+cert+" --ca-key "+key),
			ContainSubstring("keygate cursor setup --proxy https://"),
			ContainSubstring("security add-trusted-cert"),
			ContainSubstring("update-ca-certificates"),
		))
		Expect(string(s.Out.Contents())).NotTo(ContainSubstring("PRIVATE KEY"), "the key stays in its file")

		for path, mode := range map[string]os.FileMode{cert: 0o644, key: 0o600} {
			st, err := os.Stat(path)
			Expect(err).NotTo(HaveOccurred())
			Expect(st.Mode().Perm()).To(Equal(mode), path)
		}

		By("being the CA the proxy can mint Cursor's certificates with, and no other site's")
		authority, err := ca.LoadFiles(cert, key)
		Expect(err).NotTo(HaveOccurred())
		root := authority.Certificate()
		Expect(root.Subject.CommonName).To(Equal("Example Corp Keygate CA"))
		Expect(root.PermittedDNSDomains).To(Equal([]string{"cursor.sh"}))
		Expect(root.PermittedIPRanges).To(ConsistOf(
			&net.IPNet{IP: net.IPv4(127, 0, 0, 0).To4(), Mask: net.CIDRMask(8, 32)},
			&net.IPNet{IP: net.IPv6loopback, Mask: net.CIDRMask(128, 128)}))
		Expect(root.NotAfter).To(BeTemporally("~", time.Now().Add(400*24*time.Hour), 2*time.Hour))
		Expect(authority.Usable(doctor.CAHost, time.Now())).To(Succeed())
		Expect(authority.Usable("example.com", time.Now())).NotTo(Succeed())
	})

	It("passes keygate doctor's CA check, and serve presents it", func() {
		Expect(quietly("ca", "init", "--cert", cert, "--key", key)).To(gexec.Exit(0))
		dataDir := filepath.Join(GinkgoT().TempDir(), "data")
		s := quietly("doctor", "--data-dir", dataDir, "--ca-cert", cert, "--ca-key", key)
		Expect(string(s.Out.Contents())).To(MatchRegexp(`\[ok  \] CA +"Keygate Company CA" signs for api2\.cursor\.sh, name-constrained to cursor\.sh`))

		_, base := start(dataDir, "--ca-cert", cert, "--ca-key", key)
		resp, err := http.Get(base + "/ca.crt")
		Expect(err).NotTo(HaveOccurred())
		served, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		written, err := os.ReadFile(cert)
		Expect(err).NotTo(HaveOccurred())
		Expect(served).To(Equal(written))
		block, _ := pem.Decode(served)
		Expect(block).NotTo(BeNil())
		_, err = x509.ParseCertificate(block.Bytes)
		Expect(err).NotTo(HaveOccurred())
	})

	It("refuses to overwrite a certificate or a key, and leaves both files alone", func() {
		Expect(quietly("ca", "init", "--cert", cert, "--key", key)).To(gexec.Exit(0))
		oldCert, _ := os.ReadFile(cert)
		oldKey, _ := os.ReadFile(key)
		s := quietly("ca", "init", "--cert", cert, "--key", key)
		Expect(s).To(gexec.Exit(1))
		Expect(string(s.Err.Contents())).To(ContainSubstring("already exists"))
		Expect(os.ReadFile(cert)).To(Equal(oldCert))
		Expect(os.ReadFile(key)).To(Equal(oldKey))

		By("refusing a key path that exists even when the certificate is new")
		other := filepath.Join(dir, "other.crt")
		Expect(quietly("ca", "init", "--cert", other, "--key", key)).To(gexec.Exit(1))
		Expect(other).NotTo(BeAnExistingFile())
		Expect(os.ReadFile(key)).To(Equal(oldKey))
		entries, _ := os.ReadDir(dir)
		Expect(entries).To(HaveLen(2), "no temporary file is left behind")
	})

	It("exits 2 on a validity it cannot honour", func() {
		s := quietly("ca", "init", "--cert", cert, "--key", key, "--days", "0")
		Expect(s).To(gexec.Exit(2))
		Expect(string(s.Err.Contents())).To(ContainSubstring("--days"))
		Expect(cert).NotTo(BeAnExistingFile())
	})
})
