package secret_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/secret"
	"keygate/ports"
)

var _ = Describe("Load", func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	When("no key is configured (laptop)", func() {
		It("generates a key file with mode 0600 in the data directory and reuses it on the next start", func() {
			ring, err := secret.Load(secret.Source{DataDir: dir})
			Expect(err).NotTo(HaveOccurred())
			info, err := os.Stat(filepath.Join(dir, secret.KeyFile))
			Expect(err).NotTo(HaveOccurred())
			Expect(info.Mode().Perm()).To(Equal(os.FileMode(0o600)))
			sealed, _ := ring.Seal([]byte("kept"))
			again, err := secret.Load(secret.Source{DataDir: dir})
			Expect(err).NotTo(HaveOccurred())
			Expect(again.Open(sealed)).To(Equal([]byte("kept")))
		})
	})

	When("the key comes from the environment", func() {
		It("decodes base64 and ignores the data directory", func() {
			k := secret.NewKey()
			ring, err := secret.Load(secret.Source{Key: secret.EncodeKey(k), DataDir: dir})
			Expect(err).NotTo(HaveOccurred())
			Expect(ring.PrimaryID()).To(Equal(secret.KeyID(k)))
			Expect(filepath.Join(dir, secret.KeyFile)).NotTo(BeAnExistingFile())
		})

		It("names the source but not the value of a malformed key", func() {
			_, err := secret.Load(secret.Source{Key: "not-a-key"})
			Expect(err).To(MatchError(secret.ErrBadKey))
			Expect(err.Error()).To(ContainSubstring("environment"))
			Expect(err.Error()).NotTo(ContainSubstring("not-a-key"))
		})
	})

	DescribeTable("a key file may hold the key as",
		func(content func(k []byte) []byte) {
			k := secret.NewKey()
			path := filepath.Join(dir, "key")
			Expect(os.WriteFile(path, content(k), 0o600)).To(Succeed())
			ring, err := secret.Load(secret.Source{KeyFile: path})
			Expect(err).NotTo(HaveOccurred())
			Expect(ring.PrimaryID()).To(Equal(secret.KeyID(k)))
		},
		Entry("32 raw bytes", func(k []byte) []byte { return k }),
		Entry("base64 text with a trailing newline", func(k []byte) []byte { return []byte(secret.EncodeKey(k) + "\n") }),
	)

	It("reports a missing key file instead of generating one", func() {
		_, err := secret.Load(secret.Source{KeyFile: filepath.Join(dir, "absent")})
		Expect(err).To(MatchError(os.ErrNotExist))
	})

	It("opens values sealed under a previous key listed for a rollout", func() {
		old := secret.NewKey()
		before, _ := secret.NewRing(old)
		sealed, _ := before.Seal([]byte("v"))
		ring, err := secret.Load(secret.Source{Key: secret.EncodeKey(secret.NewKey()), Previous: []string{secret.EncodeKey(old)}})
		Expect(err).NotTo(HaveOccurred())
		Expect(ring.Open(sealed)).To(Equal([]byte("v")))
	})
})

var _ = Describe("BeginRotation", func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	When("the key is the data-directory key", func() {
		It("re-seals under a new key that replaces the old one on commit", func() {
			src := secret.Source{DataDir: dir}
			old, _ := secret.Load(src)
			sealed, _ := old.Seal([]byte("provider-key"))

			rot, err := secret.BeginRotation(src, "")
			Expect(err).NotTo(HaveOccurred())
			resealed, err := rot.Ring.Seal(Must(rot.Ring.Open(sealed)))
			Expect(err).NotTo(HaveOccurred())
			Expect(rot.Commit()).To(Succeed())

			now, err := secret.Load(src)
			Expect(err).NotTo(HaveOccurred())
			Expect(now.Open(resealed)).To(Equal([]byte("provider-key")))
			_, err = now.Open(sealed)
			Expect(err).To(MatchError(ports.ErrUnsealable), "the old key is forgotten")
			Expect(filepath.Join(dir, secret.NextKeyFile)).NotTo(BeAnExistingFile())
		})

		It("keeps every value readable when a rotation stops before its commit", func() {
			src := secret.Source{DataDir: dir}
			rot, err := secret.BeginRotation(src, "")
			Expect(err).NotTo(HaveOccurred())
			half, _ := rot.Ring.Seal([]byte("resealed before the crash"))

			restarted, err := secret.Load(src)
			Expect(err).NotTo(HaveOccurred())
			Expect(restarted.Open(half)).To(Equal([]byte("resealed before the crash")))
			again, err := secret.BeginRotation(src, "")
			Expect(err).NotTo(HaveOccurred())
			Expect(again.Ring.PrimaryID()).To(Equal(rot.Ring.PrimaryID()), "the interrupted rotation's key is reused")
		})
	})

	When("the operator manages the key", func() {
		It("creates the named new key file with mode 0600 and leaves the configured key alone", func() {
			src := secret.Source{Key: secret.EncodeKey(secret.NewKey())}
			next := filepath.Join(dir, "next.key")
			rot, err := secret.BeginRotation(src, next)
			Expect(err).NotTo(HaveOccurred())
			info, err := os.Stat(next)
			Expect(err).NotTo(HaveOccurred())
			Expect(info.Mode().Perm()).To(Equal(os.FileMode(0o600)))
			Expect(rot.Commit()).To(Succeed())
			loaded, err := secret.Load(secret.Source{KeyFile: next})
			Expect(err).NotTo(HaveOccurred())
			Expect(loaded.PrimaryID()).To(Equal(rot.Ring.PrimaryID()))
		})

		It("requires a new key file", func() {
			_, err := secret.BeginRotation(secret.Source{Key: secret.EncodeKey(secret.NewKey())}, "")
			Expect(err).To(HaveOccurred())
		})
	})
})

// Must unwraps a value whose error the spec has no reason to expect.
func Must[T any](v T, err error) T {
	GinkgoHelper()
	Expect(err).NotTo(HaveOccurred())
	return v
}
