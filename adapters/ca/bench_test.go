package ca_test

import (
	"testing"
	"time"

	"keygate/adapters/ca"
)

// BenchmarkLeaf measures what the first CONNECT to a host pays (mint: a
// P-256 key and a signature) against every later one (cached).
func BenchmarkLeaf(b *testing.B) {
	root, _, err := ca.Generate(time.Now(), "bench root")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("mint", func(b *testing.B) {
		leaves := ca.NewLeaves(root, ca.LeafOptions{Size: 1})
		hosts := [2]string{"api2.cursor.sh", "api3.cursor.sh"}
		i := 0
		for b.Loop() {
			i++
			if _, err := leaves.Leaf(hosts[i%2]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		leaves := ca.NewLeaves(root, ca.LeafOptions{})
		for b.Loop() {
			if _, err := leaves.Leaf("api2.cursor.sh"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
