// Command protoextract writes proto/cursor from the Cursor client schema
// files: all of agent.v1, and the closure of aiserver.v1 that Keygate answers.
// Generating the whole 1.2 MB aiserver file instead gives about 16 MB of Go
// that needs some five CPU-minutes and 7 GB of memory to compile (measured
// here); the closure compiles in seconds.
//
// Usage:
//
//	go run ./cmd/protoextract [-out proto/cursor] [-root pkg.Name]... [-check] agent_v1.proto aiserver_v1.proto
//
// Each input is matched to its plan by package (see schema.KeygatePlans) and
// written to <out>/<package path>/<name>.proto. Definitions are copied
// verbatim (parsing is done by a small hand-written tokenizer and parser in
// package schema because the source text must survive unchanged); the
// per-build "Copied from" comments and option go_package are dropped, since
// buf managed mode sets go_package. -check compares instead of writing and
// exits 1 when a committed file is stale.
//
// Place in the hexagon: none; it is build tooling, run by `task proto:extract`.
package main
