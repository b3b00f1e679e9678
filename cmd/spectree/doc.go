// Command spectree prints a Ginkgo JSON report as a tree: one tree per
// suite, headed by its package folder and suite name, with each Describe,
// Context and DescribeTable a branch and each It or Entry a leaf, in the
// order they are written in the source. `task specs` runs every suite with
// --dry-run (nothing executes) and hands the report here, so the tree is the
// living documentation of Keygate's invariants.
//
// Usage:
//
//	go tool -modfile=tools/go.mod ginkgo --dry-run -r --json-report=/tmp/specs.json ./...
//	go run ./cmd/spectree [-root dir] /tmp/specs.json
//
// Suite folders are printed relative to -root (the current directory by
// default). A pending spec is marked (pending), labels follow in brackets,
// and a suite that did not run (it failed to compile, say) is marked with
// the reason; spectree then exits 1.
//
// Place in the hexagon: none; it is build tooling, run by `task specs`.
// Imports: the standard library and github.com/onsi/ginkgo/v2/types (the
// report's own types).
package main
