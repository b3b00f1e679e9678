// Package agentsspec proves the compatible API with the real clients: it
// builds and runs `keygate serve`, puts a scripted fake provider behind it,
// and runs the published Claude Code and Codex CLI binaries headless against
// it on a small file-editing task, once in laptop mode and once in company
// mode with a member's gateway token on PostgreSQL. Each spec asserts what a
// user and an operator see: the file changed as the script asked, the call
// records name the client and the user, and the user's daily token budget
// counted the provider's usage.
//
// The clients are pinned (AgentVersions in the specs) and installed once into
// a cache outside the repository by `task agents:install`; a missing binary
// fails the suite naming that command. The clients never reach the
// internet: each runs with a scratch HOME, its telemetry, update checks and
// start-up fetches off, and HTTP(S)_PROXY pointing at a local proxy that
// refuses and records every request but loopback's; the specs assert it saw
// none.
//
// Place in the hexagon: none — it drives the built binary from outside, like
// app/threatspec's process specs. The package has no code of its own; its
// specs are the check.
package agentsspec
