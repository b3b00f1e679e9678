package secret_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/hex"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/secret"
	"keygate/ports"
)

var _ = Describe("Ring", func() {
	var (
		key  []byte
		ring *secret.Ring
	)
	BeforeEach(func() {
		key = secret.NewKey()
		var err error
		ring, err = secret.NewRing(key)
		Expect(err).NotTo(HaveOccurred())
	})

	It("opens what it sealed, and the sealed bytes hold neither the plaintext nor the key", func() {
		sealed, err := ring.Seal([]byte("sk-live-123456"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(sealed)).NotTo(ContainSubstring("sk-live"))
		Expect(bytes.Contains(sealed, key)).To(BeFalse())
		Expect(ring.Open(sealed)).To(Equal([]byte("sk-live-123456")))
	})

	It("derives the same key per purpose from the same primary, another for another purpose or primary, never the key", func() {
		again, err := secret.NewRing(key, secret.NewKey())
		Expect(err).NotTo(HaveOccurred())
		d := ring.DeriveKey("secret guard")
		Expect(d).To(HaveLen(32))
		Expect(again.DeriveKey("secret guard")).To(Equal(d))
		Expect(ring.DeriveKey("other")).NotTo(Equal(d))
		other, err := secret.NewRing(secret.NewKey(), key)
		Expect(err).NotTo(HaveOccurred())
		Expect(other.DeriveKey("secret guard")).NotTo(Equal(d))
		Expect(d).NotTo(Equal(key))
	})

	It("seals the same secret to different bytes each time", func() {
		a, _ := ring.Seal([]byte("k"))
		b, _ := ring.Seal([]byte("k"))
		Expect(a).NotTo(Equal(b))
	})

	It("writes the primary key's id after the version byte", func() {
		sealed, _ := ring.Seal([]byte("k"))
		id := secret.KeyID(key)
		Expect(sealed[0]).To(BeEquivalentTo(2))
		Expect(sealed[1:5]).To(Equal(id[:]))
		Expect(ring.Current(sealed)).To(BeTrue())
	})

	DescribeTable("refuses sealed bytes it cannot trust with ErrUnsealable",
		func(mutate func([]byte) []byte) {
			sealed, _ := ring.Seal([]byte("secret"))
			_, err := ring.Open(mutate(sealed))
			Expect(err).To(MatchError(ports.ErrUnsealable))
		},
		Entry("a flipped ciphertext byte is tampering", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }),
		Entry("a flipped nonce byte is tampering", func(b []byte) []byte { b[6] ^= 1; return b }),
		Entry("a key id rewritten to another key's is tampering", func(b []byte) []byte { b[1] ^= 1; return b }),
		Entry("a truncated value is rejected", func(b []byte) []byte { return b[:7] }),
		Entry("an empty value is rejected", func([]byte) []byte { return nil }),
		Entry("an unknown format version is rejected", func(b []byte) []byte { b[0] = 9; return b }),
		Entry("a value sealed under a key outside the ring is rejected", func([]byte) []byte {
			other, _ := secret.NewRing(secret.NewKey())
			s, _ := other.Seal([]byte("secret"))
			return s
		}),
	)

	It("never puts key material or plaintext into an error message", func() {
		other, _ := secret.NewRing(secret.NewKey())
		sealed, _ := other.Seal([]byte("sk-live-abc"))
		_, err := ring.Open(sealed)
		Expect(err.Error()).NotTo(ContainSubstring("sk-live"))
		Expect(err.Error()).NotTo(ContainSubstring(secret.EncodeKey(key)))
		_, err = secret.DecodeKey("c2hvcnQta2V5")
		Expect(err).To(MatchError(secret.ErrBadKey))
		Expect(err.Error()).NotTo(ContainSubstring("c2hvcnQta2V5"))
	})

	When("it holds an older key", func() {
		It("opens values sealed under the older key and seals new ones under the primary", func() {
			old := secret.NewKey()
			before, _ := secret.NewRing(old)
			sealed, _ := before.Seal([]byte("rotated"))
			both, err := secret.NewRing(secret.NewKey(), old)
			Expect(err).NotTo(HaveOccurred())
			Expect(both.Open(sealed)).To(Equal([]byte("rotated")))
			Expect(both.Current(sealed)).To(BeFalse())
			again, _ := both.Seal([]byte("rotated"))
			Expect(both.Current(again)).To(BeTrue())
			_, err = before.Open(again)
			Expect(err).To(MatchError(ports.ErrUnsealable))
		})
	})

	It("opens values the earlier secretbox adapter sealed under one of its keys", func() {
		// That format: version 1, a GCM nonce, then the ciphertext with the
		// version byte as additional data; it names no key.
		k := secret.NewKey()
		block, err := aes.NewCipher(k)
		Expect(err).NotTo(HaveOccurred())
		aead, err := cipher.NewGCM(block)
		Expect(err).NotTo(HaveOccurred())
		nonce := bytes.Repeat([]byte{7}, aead.NonceSize())
		sealed := aead.Seal(append([]byte{1}, nonce...), nonce, []byte("from-secretbox"), []byte{1})
		r, _ := secret.NewRing(secret.NewKey(), k)
		Expect(r.Open(sealed)).To(Equal([]byte("from-secretbox")))
		Expect(r.Current(sealed)).To(BeFalse())
	})

	It("rejects a key that is not 32 bytes", func() {
		_, err := secret.NewRing(make([]byte, 16))
		Expect(err).To(MatchError(secret.ErrBadKey))
	})
})

var _ = Describe("Fingerprint", func() {
	It("names a key the same way every time and another key otherwise, without revealing it", func() {
		key, other := secret.NewKey(), secret.NewKey()
		fp := secret.Fingerprint(key)
		Expect(fp).To(MatchRegexp(`^[0-9a-f]{64}$`))
		Expect(secret.Fingerprint(bytes.Clone(key))).To(Equal(fp))
		Expect(secret.Fingerprint(other)).NotTo(Equal(fp))
		Expect(fp).NotTo(ContainSubstring(hex.EncodeToString(key)[:8]))
		sum := sha256.Sum256(key)
		Expect(fp).NotTo(Equal(hex.EncodeToString(sum[:])), "not a bare hash of the key")
	})

	It("is the ring's primary key's, with the older keys' listed apart", func() {
		primary, older := secret.NewKey(), secret.NewKey()
		ring, err := secret.NewRing(primary, older)
		Expect(err).NotTo(HaveOccurred())
		Expect(ring.Fingerprint()).To(Equal(secret.Fingerprint(primary)))
		Expect(ring.OlderFingerprints()).To(Equal([]string{secret.Fingerprint(older)}))
	})
})
