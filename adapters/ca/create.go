package ca

import (
	"errors"
	"fmt"
	"os"
)

// ErrExists means a file CreateFiles would write is already there. It never
// replaces one: machines may already trust that root, and a key lost to an
// overwrite cannot be had back.
var ErrExists = errors.New("already exists")

// CreateFiles writes a root's certificate (mode 0644) and key (mode 0600)
// to new files, refusing when either path exists. Each file appears whole
// or not at all (written under a temporary name, then linked, which fails
// rather than replace); when the certificate cannot be written the key
// written for it is removed again.
func CreateFiles(a *Authority, keyPEM []byte, certPath, keyPath string) error {
	for _, p := range []string{certPath, keyPath} {
		ok, err := exists(p)
		if err != nil {
			return err
		}
		if ok {
			return fmt.Errorf("%s: %w", p, ErrExists)
		}
	}
	if err := writeNew(keyPath, keyPEM, 0o600); err != nil {
		return err
	}
	if err := writeNew(certPath, a.pem, 0o644); err != nil {
		_ = os.Remove(keyPath)
		return err
	}
	return nil
}

// writeNew writes data to a temporary file in path's directory with mode
// perm, syncs it and links it to path, which fails if path exists.
func writeNew(path string, data []byte, perm os.FileMode) error {
	err := place(path, data, perm, os.Link)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s: %w", path, ErrExists)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
