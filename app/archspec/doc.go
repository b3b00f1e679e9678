// Package archspec holds the architecture specs: they read Keygate's package
// graph with `go list` and fail when an import crosses the hexagon the wrong
// way, and they read the repository's own text files and fail when a
// comment, a spec name or a doc cites a document that is not in the
// repository, or a docs/ heading that does not exist (citations_test.go).
// The package has no code of its own; its specs are the enforcement.
//
// Place in the hexagon: none — it observes all of it. It sits under app/
// because the composition root is what keeps the layers apart.
package archspec
