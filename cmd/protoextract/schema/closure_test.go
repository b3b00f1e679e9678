package schema_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/cmd/protoextract/schema"
)

// scoping exercises protobuf name resolution: Inner is defined both at the
// package level and nested in Holder, and Holder's own Inner must win.
const scoping = `syntax = "proto3";
package demo.v1;
import "google/protobuf/timestamp.proto";
message Inner { string top_level = 1; }
message Holder {
  message Inner { Leaf leaf = 1; }
  Inner inner = 1;
}
message Leaf { google.protobuf.Timestamp at = 1; }
message UsesNested { Owner.Part part = 1; }
message Owner {
  message Part { string p = 1; }
  Unrelated.Tag tag = 2;
}
message Unrelated { enum Tag { TAG_UNSPECIFIED = 0; } }
message Qualified { .demo.v1.Leaf leaf = 1; demo.v1.Inner inner = 2; v1.Leaf again = 3; }
message Island { string s = 1; }
message Broken { Missing m = 1; }
`

var _ = Describe("Closure", func() {
	var f *schema.File

	BeforeEach(func() {
		f = mustParse(scoping)
	})

	DescribeTable("keeps exactly the top-level definitions reachable from the roots, in source order",
		func(roots []string, want []string, imports []string) {
			decls, gotImports, err := schema.Closure(f, roots)
			Expect(err).NotTo(HaveOccurred())
			Expect(declNames(decls)).To(Equal(want))
			Expect(gotImports).To(Equal(imports))
		},
		Entry("a definition without references is kept alone",
			[]string{"Island"}, []string{"demo.v1.Island"}, []string{}),
		Entry("a nested name resolves in the innermost scope that defines it, not at the package level",
			[]string{"Holder"}, []string{"demo.v1.Holder", "demo.v1.Leaf"}, []string{"google/protobuf/timestamp.proto"}),
		Entry("a reference to a nested type pulls in its top-level parent and the parent's references",
			[]string{"UsesNested"}, []string{"demo.v1.UsesNested", "demo.v1.Owner", "demo.v1.Unrelated"}, []string{}),
		Entry("fully qualified and package-relative names resolve to the same definitions",
			[]string{"Qualified"}, []string{"demo.v1.Inner", "demo.v1.Leaf", "demo.v1.Qualified"}, []string{"google/protobuf/timestamp.proto"}),
		Entry("a nested root keeps its whole top-level definition",
			[]string{"Owner.Part"}, []string{"demo.v1.Owner", "demo.v1.Unrelated"}, []string{}),
	)

	It("reports a reference to an undefined type as an UnresolvedError", func() {
		_, _, err := schema.Closure(f, []string{"Broken"})
		var unresolved *schema.UnresolvedError
		Expect(errors.As(err, &unresolved)).To(BeTrue(), "got %v", err)
		Expect(unresolved.Ref).To(Equal("Missing"))
		Expect(unresolved.Scope).To(Equal("demo.v1.Broken"))
	})

	It("reports a root that names no definition", func() {
		_, _, err := schema.Closure(f, []string{"Nowhere"})
		Expect(err).To(MatchError(ContainSubstring("Nowhere")))
	})
})
