package secretbox_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/secretbox"
	"keygate/ports"
)

var _ = Describe("Box", func() {
	var (
		dir string
		box *secretbox.Box
	)
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		var err error
		box, err = secretbox.Open(dir)
		Expect(err).NotTo(HaveOccurred())
	})

	It("opens what it sealed and never stores the plaintext", func() {
		sealed, err := box.Seal([]byte("sk-live-123456"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(sealed)).NotTo(ContainSubstring("sk-live"))
		Expect(box.Open(sealed)).To(Equal([]byte("sk-live-123456")))
	})

	It("seals the same secret to different bytes each time", func() {
		a, _ := box.Seal([]byte("k"))
		b, _ := box.Seal([]byte("k"))
		Expect(a).NotTo(Equal(b))
	})

	It("creates the key file with mode 0600 and reuses it on the next start", func() {
		info, err := os.Stat(filepath.Join(dir, secretbox.KeyFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(info.Mode().Perm()).To(Equal(os.FileMode(0o600)))
		sealed, _ := box.Seal([]byte("kept"))
		again, err := secretbox.Open(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(again.Open(sealed)).To(Equal([]byte("kept")))
	})

	DescribeTable("refuses sealed bytes it cannot trust",
		func(mutate func([]byte) []byte) {
			sealed, _ := box.Seal([]byte("secret"))
			_, err := box.Open(mutate(sealed))
			Expect(err).To(MatchError(ports.ErrUnsealable))
		},
		Entry("a flipped ciphertext byte is rejected", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }),
		Entry("a truncated value is rejected", func(b []byte) []byte { return b[:5] }),
		Entry("an unknown format version is rejected", func(b []byte) []byte { b[0] = 9; return b }),
		Entry("a value sealed under another key is rejected", func([]byte) []byte {
			other, _ := secretbox.Open(GinkgoT().TempDir())
			s, _ := other.Seal([]byte("secret"))
			return s
		}),
	)
})
