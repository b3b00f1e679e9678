package secret

import (
	"fmt"
	"os"
	"path/filepath"
)

// Rotation is a key change in progress: Ring seals under the new key and
// still opens everything the old keys sealed. After every stored secret has
// been re-sealed through Ring, Commit makes the new key the primary one.
type Rotation struct {
	Ring   *Ring
	commit func() error
}

// Commit finishes the rotation. For the data-directory key it replaces the
// key file with the new key (an atomic rename) and so forgets the old key;
// for a key the operator manages it does nothing, and the operator points
// the configuration at the new key.
func (r *Rotation) Commit() error { return r.commit() }

// BeginRotation starts a rotation away from the keys src names.
//
// Laptop mode (src.Local()): the new key is DataDir/NextKeyFile, created
// 0600 or reused when an earlier rotation was interrupted; newKeyFile must
// be empty. Company mode: the new key is read from newKeyFile, which is
// created with a random key and mode 0600 when it does not exist.
func BeginRotation(src Source, newKeyFile string) (*Rotation, error) {
	old, err := Load(src)
	if err != nil {
		return nil, err
	}
	if src.Local() {
		if newKeyFile != "" {
			return nil, fmt.Errorf("rotate data-directory key: a new key file is only for a key set by environment or file")
		}
		newKeyFile = filepath.Join(src.DataDir, NextKeyFile)
	} else if newKeyFile == "" {
		return nil, fmt.Errorf("rotate secret key: name the new key file")
	}
	next, err := ReadOrCreateKeyFile(newKeyFile)
	if err != nil {
		return nil, err
	}
	ring, err := NewRing(next)
	if err != nil {
		return nil, err
	}
	ring.all = append(ring.all, old.all...)
	ring.all = dedupe(ring.all)
	rot := &Rotation{Ring: ring, commit: func() error { return nil }}
	if src.Local() {
		rot.commit = func() error {
			if err := os.Rename(newKeyFile, filepath.Join(src.DataDir, KeyFile)); err != nil {
				return fmt.Errorf("install new secret key: %w", err)
			}
			return nil
		}
	}
	return rot, nil
}

func dedupe(all []sealer) []sealer {
	out := all[:0]
	seen := map[[idSize]byte]bool{}
	for _, s := range all {
		if !seen[s.id] {
			seen[s.id] = true
			out = append(out, s)
		}
	}
	return out
}
