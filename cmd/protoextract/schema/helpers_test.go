package schema_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gcustom"
	"github.com/onsi/gomega/types"

	"keygate/cmd/protoextract/schema"
)

// repoRoot is the repository root as seen from this package's directory,
// where `go test` runs the specs.
const repoRoot = "../../.."

// referenceDir is where the Cursor client schemas live: $KEYGATE_CURSOR_SCHEMAS
// (to try a newer client build), or the copies committed under
// proto/source/cursor (as in Taskfile.yml).
func referenceDir() string {
	if dir := os.Getenv("KEYGATE_CURSOR_SCHEMAS"); dir != "" {
		return dir
	}
	return filepath.Join(repoRoot, "proto", "source", "cursor")
}

// readReference returns one reference schema file's text. The files are
// part of the repository, so a missing one fails the spec.
func readReference(name string) string {
	src, err := os.ReadFile(filepath.Join(referenceDir(), name))
	Expect(err).NotTo(HaveOccurred(), "the Cursor client schema %s", name)
	return string(src)
}

// mustParse parses src or fails the spec.
func mustParse(src string) *schema.File {
	f, err := schema.Parse(src)
	Expect(err).NotTo(HaveOccurred())
	return f
}

// planFor returns the Keygate plan of package pkg.
func planFor(pkg string) schema.Plan {
	plan, ok := schema.PlanFor(schema.KeygatePlans(), pkg)
	Expect(ok).To(BeTrue(), "no plan for %s", pkg)
	return plan
}

// extract runs Extract on src with plan or fails the spec.
func extract(src string, plan schema.Plan) schema.Result {
	res, err := schema.Extract(mustParse(src), "test.proto", plan)
	Expect(err).NotTo(HaveOccurred())
	return res
}

// declNames lists the full names of decls in order.
func declNames(decls []*schema.Decl) []string {
	names := make([]string, len(decls))
	for i, d := range decls {
		names[i] = d.FullName
	}
	return names
}

// HaveProtoField succeeds when actual, a *schema.Decl, has a field with this
// name and number.
func HaveProtoField(name string, number int) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(d *schema.Decl) (bool, error) {
		f, ok := d.Field(name)
		return ok && f.Number == number, nil
	}).WithTemplate("Expected {{.Actual.FullName}} to have field {{.Data.Name}} = {{.Data.Number}}; its fields are {{.Actual.Fields}}",
		struct {
			Name   string
			Number int
		}{name, number})
}

// lookup finds a definition by name relative to f's package or fails.
func lookup(f *schema.File, name string) *schema.Decl {
	d, ok := f.Lookup(name)
	Expect(ok).To(BeTrue(), "%s is not defined in %s", name, f.Package)
	return d
}
