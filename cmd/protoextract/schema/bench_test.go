package schema_test

import (
	"os"
	"path/filepath"
	"testing"

	"keygate/cmd/protoextract/schema"
)

// benchSource reads a reference schema; the files are in the repository.
func benchSource(b *testing.B, name string) string {
	src, err := os.ReadFile(filepath.Join(referenceDir(), name))
	if err != nil {
		b.Fatalf("read reference schema %s: %v", name, err)
	}
	return string(src)
}

// BenchmarkExtract measures a whole extraction (parse, closure, render) of
// each Cursor schema with Keygate's plan; bytes/s is input throughput.
func BenchmarkExtract(b *testing.B) {
	for _, tc := range []struct{ file, pkg string }{
		{"agent_v1.proto", "agent.v1"},
		{"aiserver_v1.proto", "aiserver.v1"},
	} {
		b.Run(tc.pkg, func(b *testing.B) {
			src := benchSource(b, tc.file)
			plan, _ := schema.PlanFor(schema.KeygatePlans(), tc.pkg)
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				f, err := schema.Parse(src)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := schema.Extract(f, tc.file, plan); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
