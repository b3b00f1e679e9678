package schema_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/cmd/protoextract/schema"
)

const sample = `syntax = "proto3";

package demo.v1;

import "google/protobuf/struct.proto";

option go_package = "example/demo;demov1";

// Copied from: local:demo.v1.Outer (var: xy)
message Outer {
  // Copied from: local:demo.v1.Outer.Kind (var: q)
  enum Kind {
    KIND_UNSPECIFIED = 0;
    KIND_NEGATIVE = -1;
  }

  reserved 9, 10;
  optional string name = 1;
  repeated Kind kinds = 2 [packed = true];
  map<string, google.protobuf.Value> attrs = 3;
  oneof choice {
    int64 number = 4;
    Outer.Kind kind = 5;
  }
  string message = 6;
}

service DemoService {
  rpc Talk(stream Outer) returns (stream Outer) {}
  rpc Listen(Outer) returns (stream Outer);
}
`

var _ = Describe("Parse", func() {
	var f *schema.File

	BeforeEach(func() {
		f = mustParse(sample)
	})

	It("reads the file header", func() {
		Expect(f.Syntax).To(Equal("proto3"))
		Expect(f.Package).To(Equal("demo.v1"))
		Expect(f.Imports).To(Equal([]string{"google/protobuf/struct.proto"}))
		Expect(f.Options).To(Equal([]schema.Option{{Name: "go_package", Value: `"example/demo;demov1"`}}))
	})

	It("reads labels, map types and oneof membership of fields", func() {
		outer := lookup(f, "Outer")
		Expect(outer.Fields).To(Equal([]schema.Field{
			{Name: "name", Number: 1, Label: "optional", Type: "string"},
			{Name: "kinds", Number: 2, Label: "repeated", Type: "Kind"},
			{Name: "attrs", Number: 3, Type: "google.protobuf.Value", KeyType: "string"},
			{Name: "number", Number: 4, Type: "int64", Oneof: "choice"},
			{Name: "kind", Number: 5, Type: "Outer.Kind", Oneof: "choice"},
			{Name: "message", Number: 6, Type: "string"},
		}))
	})

	It("nests enums under their message with negative values intact", func() {
		kind := lookup(f, "Outer.Kind")
		Expect(kind.FullName).To(Equal("demo.v1.Outer.Kind"))
		Expect(kind.Top()).To(BeIdenticalTo(lookup(f, "Outer")))
		Expect(kind.Values).To(Equal([]schema.EnumValue{{Name: "KIND_UNSPECIFIED", Number: 0}, {Name: "KIND_NEGATIVE", Number: -1}}))
	})

	It("reads the stream kind of each rpc", func() {
		svc, ok := f.Service("DemoService")
		Expect(ok).To(BeTrue())
		Expect(svc.Methods).To(Equal([]schema.Method{
			{Name: "Talk", Input: "Outer", Output: "Outer", ClientStream: true, ServerStream: true},
			{Name: "Listen", Input: "Outer", Output: "Outer", ServerStream: true},
		}))
	})

	DescribeTable("rejects malformed schemas with the line of the fault",
		func(src string, line int) {
			_, err := schema.Parse(src)
			var syntaxErr *schema.SyntaxError
			Expect(errors.As(err, &syntaxErr)).To(BeTrue(), "got %v", err)
			Expect(syntaxErr.Line).To(Equal(line))
		},
		Entry("a message without its closing brace", "syntax = \"proto3\";\nmessage A {\n  string a = 1;\n", 4),
		Entry("a field without a number", "message A {\n  string a = ;\n}\n", 2),
		Entry("an unterminated string", "syntax = \"proto3;\n", 1),
		Entry("a stray character", "message A {\n  string a = 1; #\n}\n", 2),
		Entry("an unknown top-level statement", "syntax = \"proto3\";\nfrobnicate;\n", 2),
	)
})
