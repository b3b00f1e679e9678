package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"keygate/ports"
)

// KeyFile is the name of the key file in the data directory.
const KeyFile = "secret.key"

// version prefixes every sealed value so that the format can change.
const version byte = 1

// Box seals with one AES-256-GCM key. It is safe for concurrent use.
type Box struct {
	aead cipher.AEAD
}

var _ ports.SecretBox = (*Box)(nil)

// New returns a Box for a 32-byte key.
func New(key []byte) (*Box, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	if len(key) != 32 {
		return nil, fmt.Errorf("secret key: want 32 bytes, have %d", len(key))
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	return &Box{aead: aead}, nil
}

// Open returns a Box for the key file in dir, first creating the file with a
// random key and mode 0600 if there is none.
func Open(dir string) (*Box, error) {
	path := filepath.Join(dir, KeyFile)
	key, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		key = make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, fmt.Errorf("generate secret key: %w", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, fmt.Errorf("create secret key: %w", err)
		}
		_, werr := f.Write(key)
		if err := errors.Join(werr, f.Close()); err != nil {
			return nil, fmt.Errorf("write secret key: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("read secret key: %w", err)
	}
	return New(key)
}

// Seal returns version, nonce and ciphertext.
func (b *Box) Seal(plaintext []byte) ([]byte, error) {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	out := append([]byte{version}, nonce...)
	return b.aead.Seal(out, nonce, plaintext, []byte{version}), nil
}

// Open reverses Seal, or returns ports.ErrUnsealable.
func (b *Box) Open(sealed []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < 1+n || sealed[0] != version {
		return nil, fmt.Errorf("open secret: %w", ports.ErrUnsealable)
	}
	out, err := b.aead.Open(nil, sealed[1:1+n], sealed[1+n:], []byte{version})
	if err != nil {
		return nil, fmt.Errorf("open secret: %w", ports.ErrUnsealable)
	}
	return out, nil
}
