// Package setup writes the client settings that point coding agents at
// Keygate's compatible API: Claude Code's environment variables and the
// Codex CLI's config.toml, which it can merge into an existing file.
//
// It is shaped as plain text functions so that `keygate setup` and the
// console's Connect page print the same settings. The Codex merge edits
// the file as lines (the keys it owns and one table) rather than through a
// TOML round trip, so the rest of the file, comments included, stays as
// the user wrote it.
//
// Place in the hexagon: adapter support (used by cmd/keygate and the
// composition root). Imports: the standard library.
package setup
