package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// Elements returns the elements of the top-level array field key of a JSON
// request body, byte for byte as sent.
func Elements(body []byte, key string) ([]json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, fmt.Errorf("read request body: %w", err)
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(top[key], &elems); err != nil {
		return nil, fmt.Errorf("read %q: %w", key, err)
	}
	return elems, nil
}

// Golden compares got with the golden file at path. With UPDATE_GOLDEN=1 in
// the environment it rewrites the file instead (review the diff). The file
// holds the body indented for reading; the comparison is on the compact
// bytes, so indentation never hides a byte difference.
func Golden(path string, got []byte) error {
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, got, "", "  "); err != nil {
		return fmt.Errorf("indent body: %w", err)
	}
	pretty.WriteByte('\n')
	if os.Getenv("UPDATE_GOLDEN") == "1" {
		return os.WriteFile(path, pretty.Bytes(), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read golden file: %w", err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, want); err != nil {
		return fmt.Errorf("compact golden file: %w", err)
	}
	if !bytes.Equal(compact.Bytes(), got) {
		return fmt.Errorf("request body differs from %s:\n got: %s\nwant: %s", path, got, compact.Bytes())
	}
	return nil
}
