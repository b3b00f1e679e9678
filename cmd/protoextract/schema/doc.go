// Package schema reads protobuf schema files and cuts out the part Keygate
// serves: the definitions reachable from a [Plan]'s roots, copied verbatim,
// plus the service blocks the plan names.
//
// Place in the hexagon: none. It is build tooling behind cmd/protoextract and
// its output (proto/cursor) only feeds buf, whose generated code under gen/
// is what adapters import. Nothing in the running server imports it.
//
// Why a hand-written tokenizer and parser instead of a protobuf compiler
// library: the output must reproduce each definition's source text exactly
// (field order, spacing, nested layout), while compilers such as protocompile
// or protoparse produce descriptors and would re-print the schema in their own
// style. The grammar needed is small (messages, enums, oneofs, maps, services,
// options), and buf still compiles and lints the result, so a parsing mistake
// surfaces there.
package schema
