package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscale/hujson"
)

// Keys are the settings setup writes and undo removes, in writing order:
// the proxy, proxy support for extensions, HTTP/1.1 only (Node's HTTP/2
// client ignores the proxy: docs/cursor-protocol.md, "HTTP/2 ignores the
// proxy") and trust in the system
// certificate store (where the CA is installed).
var Keys = []string{
	"http.proxy",
	"http.proxySupport",
	"cursor.general.disableHttp2",
	"http.experimental.systemCertificatesV2",
}

// ErrNotObject means settings.json holds something other than a JSON object.
var ErrNotObject = errors.New("settings file is not a JSON object")

// Change is what Apply or Undo did to one key.
type Change struct {
	Key string
	// Old is the previous value as written in the file ("" when absent).
	Old string
	// New is the value written ("" when removed).
	New string
}

// Apply sets Keys in the settings file at path, with proxyURL as
// http.proxy, creating the file (mode 0600, as the URL may carry a token)
// and its directory when missing. Everything else in the file is kept.
func Apply(path, proxyURL string) ([]Change, error) {
	values := map[string]hujson.Literal{
		"http.proxy":                             hujson.String(proxyURL),
		"http.proxySupport":                      hujson.String("on"),
		"cursor.general.disableHttp2":            hujson.Bool(true),
		"http.experimental.systemCertificatesV2": hujson.Bool(true),
	}
	return edit(path, func(obj *hujson.Object) []Change {
		var changes []Change
		for _, k := range Keys {
			old := set(obj, k, values[k])
			changes = append(changes, Change{Key: k, Old: old, New: string(values[k])})
		}
		return changes
	})
}

// Undo removes Keys from the settings file at path, keeping everything
// else, including comments written above a removed key. A missing file is
// left missing.
func Undo(path string) ([]Change, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return edit(path, func(obj *hujson.Object) []Change {
		var changes []Change
		for _, k := range Keys {
			if old, ok := remove(obj, k); ok {
				changes = append(changes, Change{Key: k, Old: old})
			}
		}
		return changes
	})
}

// edit parses the file (an absent or blank file is an empty object),
// applies fn to its top-level object and writes the result atomically.
func edit(path string, fn func(*hujson.Object) []Change) ([]Change, error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // replace the target, not a dotfiles symlink
	}
	data, mode, err := read(path)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(string(data)) == "" {
		data = []byte("{}\n")
	}
	root, err := hujson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	obj, ok := root.Value.(*hujson.Object)
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, ErrNotObject)
	}
	changes := fn(obj)
	if err := writeAtomic(path, root.Pack(), mode); err != nil {
		return nil, err
	}
	return changes, nil
}

func read(path string) ([]byte, fs.FileMode, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, 0, fmt.Errorf("create settings directory: %w", err)
		}
		return nil, 0o600, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read settings: %w", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, fmt.Errorf("stat settings: %w", err)
	}
	return data, st.Mode().Perm(), nil
}

// writeAtomic replaces path with data through a synced temporary file in
// the same directory, keeping mode.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".settings-*.json")
	if err != nil {
		return fmt.Errorf("write settings: %w", err)
	}
	_, werr := tmp.Write(data)
	werr = errors.Join(werr, tmp.Chmod(mode), tmp.Sync(), tmp.Close())
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write settings: %w", werr)
	}
	return nil
}

// Current reads the values of Keys in the settings file at path, as JSON
// literals ("" for a key that is absent), without changing anything. A
// missing file is fs.ErrNotExist (wrapped). The http.proxy value may hold a
// gateway token: show it only through RedactProxy.
func Current(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read settings: %w", err)
	}
	if strings.TrimSpace(string(data)) == "" {
		data = []byte("{}")
	}
	root, err := hujson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	obj, ok := root.Value.(*hujson.Object)
	if !ok {
		return nil, fmt.Errorf("%s: %w", path, ErrNotObject)
	}
	out := map[string]string{}
	for _, k := range Keys {
		if i := find(obj, k); i >= 0 {
			out[k] = literal(obj.Members[i].Value)
		} else {
			out[k] = ""
		}
	}
	return out, nil
}
