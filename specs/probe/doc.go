// Package probe holds specs that run the real keygate binary and measure it
// from the outside, as an operator would: the resident memory of the process
// under hostile input (gzip bombs, abandoned request ids), read from /proc.
//
// Place in the hexagon: outside it, like cmd/keygate's own specs. It builds
// and starts the binary with gexec and talks to it over the network only;
// it imports the Cursor wire helpers (frame encoding, generated messages)
// and the PostgreSQL test helper, never the application graph.
package probe
