package secret

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"keygate/ports"
)

// KeySize is the length of every key: AES-256.
const KeySize = 32

const (
	legacyVersion byte = 1 // the earlier secretbox adapter: version, nonce, ciphertext
	version       byte = 2 // version, key id, nonce, ciphertext
	idSize             = 4
)

// ErrBadKey means a key is not KeySize bytes (or not valid base64 where text
// was expected). The message never contains key material.
var ErrBadKey = errors.New("secret key must be 32 bytes")

// ErrNoKey means a keyring was built without any key.
var ErrNoKey = errors.New("no secret key")

// Ring seals with its primary key and opens with any of its keys. It is
// immutable and safe for concurrent use.
type Ring struct {
	primary sealer
	all     []sealer
	// derive is HMAC-SHA256(primary key, deriveLabel): the root of
	// DeriveKey, kept instead of the key itself.
	derive []byte
}

// deriveLabel separates DeriveKey's root from every other use of the key.
const deriveLabel = "keygate derived keys v1"

// DeriveKey returns a 32-byte key for purpose, derived from the primary
// key (HMAC-SHA256 of purpose under the derivation root): the same on
// every replica sharing the keyring, different for each purpose, and no
// help in recovering the primary key. The secret guard's redaction
// markers are keyed with one, so a redacted prompt is the same bytes on
// every replica. A new primary key derives new keys.
func (r *Ring) DeriveKey(purpose string) []byte {
	m := hmac.New(sha256.New, r.derive)
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

type sealer struct {
	id   [idSize]byte
	aead cipher.AEAD
	// fingerprint is Fingerprint(key), computed once: the ring keeps no
	// key bytes.
	fingerprint string
}

var _ ports.SecretBox = (*Ring)(nil)

// NewRing returns a ring that seals with primary and also opens values
// sealed with any of older. Duplicate keys are ignored.
func NewRing(primary []byte, older ...[]byte) (*Ring, error) {
	if primary == nil {
		return nil, ErrNoKey
	}
	r := &Ring{}
	for i, k := range append([][]byte{primary}, older...) {
		s, err := newSealer(k)
		if err != nil {
			return nil, fmt.Errorf("secret key %d: %w", i+1, err)
		}
		if r.has(s.id) {
			continue
		}
		r.all = append(r.all, s)
	}
	r.primary = r.all[0]
	m := hmac.New(sha256.New, primary)
	m.Write([]byte(deriveLabel))
	r.derive = m.Sum(nil)
	return r, nil
}

func newSealer(key []byte) (sealer, error) {
	if len(key) != KeySize {
		return sealer{}, ErrBadKey
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return sealer{}, ErrBadKey
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return sealer{}, fmt.Errorf("gcm: %w", err)
	}
	return sealer{id: KeyID(key), aead: aead, fingerprint: Fingerprint(key)}, nil
}

// fingerprintLabel is the message Fingerprint authenticates; its version
// lets a later format coexist.
const fingerprintLabel = "keygate deployment key fingerprint v1"

// Fingerprint identifies key among a deployment's replicas without
// revealing anything of it: the hex HMAC-SHA256 of a constant under the
// key. Replicas compare fingerprints through their shared database to find
// one started with another key (a fingerprint cannot be turned back into
// the key, nor checked against a guess without the key itself being the
// guess, which a 32-byte random key makes hopeless).
func Fingerprint(key []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(fingerprintLabel))
	return hex.EncodeToString(m.Sum(nil))
}

// KeyID is the public 4-byte identifier of key written into sealed values.
// It is a domain-separated SHA-256 prefix: it names the key without
// helping anyone guess it.
func KeyID(key []byte) [idSize]byte {
	sum := sha256.Sum256(append([]byte("keygate secret key id\x00"), key...))
	var id [idSize]byte
	copy(id[:], sum[:idSize])
	return id
}

func (r *Ring) has(id [idSize]byte) bool {
	for _, s := range r.all {
		if s.id == id {
			return true
		}
	}
	return false
}

// Fingerprint is the fingerprint of the key Seal uses.
func (r *Ring) Fingerprint() string { return r.primary.fingerprint }

// OlderFingerprints are the fingerprints of the ring's other keys, which
// still open what they sealed (a rotation rolling out).
func (r *Ring) OlderFingerprints() []string {
	var out []string
	for _, s := range r.all[1:] {
		out = append(out, s.fingerprint)
	}
	return out
}

// PrimaryID is the id of the key Seal uses.
func (r *Ring) PrimaryID() [idSize]byte { return r.primary.id }

// Seal implements ports.SecretBox.
func (r *Ring) Seal(plaintext []byte) ([]byte, error) {
	header := append([]byte{version}, r.primary.id[:]...)
	nonce := make([]byte, r.primary.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("seal secret: %w", err)
	}
	out := append(bytes.Clone(header), nonce...)
	return r.primary.aead.Seal(out, nonce, plaintext, header), nil
}

// Open implements ports.SecretBox: it returns ports.ErrUnsealable (wrapped)
// for an unknown format, a key id not in the ring, or any tampering.
func (r *Ring) Open(sealed []byte) ([]byte, error) {
	if len(sealed) > 0 && sealed[0] == legacyVersion {
		return r.openLegacy(sealed)
	}
	if len(sealed) < 1+idSize || sealed[0] != version {
		return nil, fmt.Errorf("open secret: %w", ports.ErrUnsealable)
	}
	var id [idSize]byte
	copy(id[:], sealed[1:1+idSize])
	for _, s := range r.all {
		if s.id != id {
			continue
		}
		n := s.aead.NonceSize()
		rest := sealed[1+idSize:]
		if len(rest) < n {
			break
		}
		out, err := s.aead.Open(nil, rest[:n], rest[n:], sealed[:1+idSize])
		if err != nil {
			break
		}
		return out, nil
	}
	return nil, fmt.Errorf("open secret: %w", ports.ErrUnsealable)
}

// openLegacy opens the earlier secretbox adapter's format, which names no key: each
// key of the ring is tried (GCM authentication tells the right one).
func (r *Ring) openLegacy(sealed []byte) ([]byte, error) {
	for _, s := range r.all {
		n := s.aead.NonceSize()
		if len(sealed) < 1+n {
			break
		}
		if out, err := s.aead.Open(nil, sealed[1:1+n], sealed[1+n:], sealed[:1]); err == nil {
			return out, nil
		}
	}
	return nil, fmt.Errorf("open secret: %w", ports.ErrUnsealable)
}

// Current reports whether sealed is already sealed under the primary key
// in the current format, so rotation can skip it.
func (r *Ring) Current(sealed []byte) bool {
	return len(sealed) >= 1+idSize && sealed[0] == version && bytes.Equal(sealed[1:1+idSize], r.primary.id[:])
}
