package secret

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Key file names in the data directory (laptop installs).
const (
	// KeyFile holds the primary key as 32 raw bytes, mode 0600. It is the
	// same file the earlier secretbox adapter used, so its values keep opening.
	KeyFile = "secret.key"
	// NextKeyFile holds the key a rotation in progress re-seals under; it
	// exists only between the start and the end of `keygate secret rotate`.
	NextKeyFile = "secret.key.next"
)

// Source says where the keys come from. Exactly one of Key, KeyFile and
// DataDir names the primary key, in that order of precedence.
type Source struct {
	// Key is the primary key as base64 text (company: from the
	// environment, KEYGATE_SECRET_KEY).
	Key string
	// KeyFile holds the primary key, as 32 raw bytes or base64 text
	// (company: a mounted secret, KEYGATE_SECRET_KEY_FILE).
	KeyFile string
	// Previous are base64 keys that still open values during a rotation
	// rollout, while some replicas have not restarted yet.
	Previous []string
	// PreviousFiles are files of keys that still open values.
	PreviousFiles []string
	// DataDir is used when Key and KeyFile are empty: the key is
	// DataDir/KeyFile, generated with mode 0600 on first use.
	DataDir string
}

// Local reports whether the primary key is the generated data-directory
// key (laptop mode).
func (s Source) Local() bool { return s.Key == "" && s.KeyFile == "" }

// Load builds the keyring src describes. Errors name the source that
// failed, never a key.
func Load(src Source) (*Ring, error) {
	primary, err := src.primary()
	if err != nil {
		return nil, err
	}
	var older [][]byte
	for i, text := range src.Previous {
		k, err := DecodeKey(text)
		if err != nil {
			return nil, fmt.Errorf("previous secret key %d: %w", i+1, err)
		}
		older = append(older, k)
	}
	for _, path := range src.PreviousFiles {
		k, err := ReadKeyFile(path)
		if err != nil {
			return nil, err
		}
		older = append(older, k)
	}
	if src.Local() {
		// An interrupted rotation left values sealed under the next key.
		next, err := ReadKeyFile(filepath.Join(src.DataDir, NextKeyFile))
		if err == nil {
			older = append(older, next)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return NewRing(primary, older...)
}

func (s Source) primary() ([]byte, error) {
	switch {
	case s.Key != "":
		k, err := DecodeKey(s.Key)
		if err != nil {
			return nil, fmt.Errorf("secret key from environment: %w", err)
		}
		return k, nil
	case s.KeyFile != "":
		return ReadKeyFile(s.KeyFile)
	case s.DataDir != "":
		return ReadOrCreateKeyFile(filepath.Join(s.DataDir, KeyFile))
	default:
		return nil, ErrNoKey
	}
}

// DecodeKey decodes a base64 key (standard or URL alphabet, padded or
// not) and checks its size.
func DecodeKey(text string) ([]byte, error) {
	text = strings.TrimSpace(text)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(text); err == nil {
			if len(k) != KeySize {
				return nil, ErrBadKey
			}
			return k, nil
		}
	}
	return nil, ErrBadKey
}

// EncodeKey is the base64 text DecodeKey reads.
func EncodeKey(key []byte) string { return base64.StdEncoding.EncodeToString(key) }

// ReadKeyFile reads a key file holding 32 raw bytes or base64 text. A
// missing file is reported with fs.ErrNotExist (wrapped).
func ReadKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read secret key file: %w", err)
	}
	if len(b) == KeySize {
		return b, nil
	}
	k, err := DecodeKey(string(bytes.TrimSpace(b)))
	if err != nil {
		return nil, fmt.Errorf("secret key file %s: %w", path, err)
	}
	return k, nil
}

// ReadOrCreateKeyFile reads path, first creating it with a random key and
// mode 0600 when it does not exist. Creation is exclusive, so two
// processes starting at once agree on one key.
func ReadOrCreateKeyFile(path string) ([]byte, error) {
	k, err := ReadKeyFile(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return k, err
	}
	k = NewKey()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return ReadKeyFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("create secret key file: %w", err)
	}
	_, werr := f.Write(k)
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		return nil, fmt.Errorf("write secret key file: %w", err)
	}
	return k, nil
}

// NewKey returns a random key. crypto/rand never fails on supported
// platforms (it panics rather than return weak bytes).
func NewKey() []byte {
	k := make([]byte, KeySize)
	_, _ = rand.Read(k)
	return k
}
