package secret_test

import (
	"testing"

	"keygate/adapters/secret"
)

func BenchmarkRingSeal(b *testing.B) {
	r, _ := secret.NewRing(secret.NewKey())
	key := []byte("sk-live-0123456789abcdef0123456789abcdef")
	for b.Loop() {
		_, _ = r.Seal(key)
	}
}

// BenchmarkRingOpenOlderKey opens a value sealed under the last of three
// keys, the slowest case during a rotation rollout.
func BenchmarkRingOpenOlderKey(b *testing.B) {
	old := secret.NewKey()
	before, _ := secret.NewRing(old)
	sealed, _ := before.Seal([]byte("sk-live-0123456789abcdef0123456789abcdef"))
	r, _ := secret.NewRing(secret.NewKey(), secret.NewKey(), old)
	for b.Loop() {
		_, _ = r.Open(sealed)
	}
}
