// Package archspec holds the architecture specs: they read Keygate's package
// graph with `go list` and fail when an import crosses the hexagon the wrong
// way. The package has no code of its own; its specs are the enforcement.
//
// Place in the hexagon: none — it observes all of it. It sits under app/
// because the composition root is what keeps the layers apart.
package archspec
