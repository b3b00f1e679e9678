// Package archspec holds the architecture specs. They read Keygate's package
// graph with `go list` and fail when
//
//   - an import crosses the hexagon the wrong way (rules_test.go);
//   - one adapter imports another along an edge the allow-list lacks, the
//     allow-list names an edge the code no longer has, or the table of
//     those edges in docs/architecture.md differs from it
//     (adapters_test.go);
//   - code in app/ or adapters/ outside the protocol packages names a
//     provider protocol kind (protocols_test.go);
//   - a package doc states in prose what its package imports, or its
//     checked Imports sentence differs from the imports (docimports_test.go
//     defines that sentence);
//   - the keygate binary links a test support package (binary_test.go);
//   - a zap field's key is not snake_case, or spells an id other than
//     <name>_id (logkeys_test.go).
//
// They also read the repository's own text files and fail when a comment, a
// spec name or a doc cites a document that is not in the repository, or a
// docs/ heading that does not exist (citations_test.go). The package has no
// code of its own; its specs are the enforcement.
//
// Place in the hexagon: none — it observes all of it. It sits under app/
// because the composition root is what keeps the layers apart.
package archspec
