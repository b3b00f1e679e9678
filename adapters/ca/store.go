package ca

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// ErrHalfPresent means only one of the certificate and key files exists. Keygate
// never overwrites the survivor, since users may already trust that root.
var ErrHalfPresent = errors.New("CA certificate and key must both exist or both be absent")

// LoadOrCreate returns the installation root stored in dir, generating it
// on first start: ca.crt mode 0644 and ca.key mode 0600. created reports a
// fresh root (the user must trust it before Cursor connects). Files are
// written to temporary names and renamed, so a crash never leaves a
// truncated key behind.
func LoadOrCreate(dir string, now time.Time) (a *Authority, created bool, err error) {
	certPath, keyPath := filepath.Join(dir, CertFile), filepath.Join(dir, KeyFile)
	certOK, err := exists(certPath)
	if err != nil {
		return nil, false, err
	}
	keyOK, err := exists(keyPath)
	if err != nil {
		return nil, false, err
	}
	switch {
	case certOK && keyOK:
		a, err := LoadFiles(certPath, keyPath)
		return a, false, err
	case certOK || keyOK:
		return nil, false, fmt.Errorf("%s: %w", dir, ErrHalfPresent)
	}
	host, _ := os.Hostname()
	a, keyPEM, err := Generate(now, "Keygate Local CA "+host)
	if err != nil {
		return nil, false, err
	}
	if err := writeAtomic(keyPath, keyPEM, 0o600); err != nil {
		return nil, false, err
	}
	if err := writeAtomic(certPath, a.pem, 0o644); err != nil {
		return nil, false, err
	}
	return a, true, nil
}

// LoadFiles reads a root from PEM files, for a company CA given by
// configuration or the stored installation root.
func LoadFiles(certPath, keyPath string) (*Authority, error) {
	certPEM, err := os.ReadFile(certPath)
	if err != nil {
		return nil, fmt.Errorf("read CA certificate: %w", err)
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, fmt.Errorf("read CA key: %w", err)
	}
	a, err := Parse(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", certPath, err)
	}
	return a, nil
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("stat %s: %w", path, err)
	}
	return true, nil
}

// writeAtomic writes data to a temporary file in path's directory with
// mode perm, syncs it and renames it over path.
func writeAtomic(path string, data []byte, perm os.FileMode) error {
	if err := place(path, data, perm, os.Rename); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// place writes data to a temporary file in path's directory with mode
// perm, syncs it and puts it at path with put (a rename replaces, a link
// refuses an existing path); the temporary file is gone afterwards.
func place(path string, data []byte, perm os.FileMode, put func(tmp, path string) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() { _ = os.Remove(tmp) }() // a no-op once renamed
	err = f.Chmod(perm)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return put(tmp, path)
}
