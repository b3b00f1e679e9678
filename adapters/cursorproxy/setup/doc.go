// Package setup points a Cursor installation at Keygate's proxy: it edits
// Cursor's user settings.json (JSON with comments) to set the proxy and
// the TLS options interception needs, removes exactly those keys again on
// undo, and explains how to trust the CA on each operating system.
//
// Place in the hexagon: an adapter (the user's file system), used only by
// the keygate command line. It sits under cursorproxy because it writes the
// proxy's client side.
//
// The JSONC is edited as a syntax tree by github.com/tailscale/hujson,
// which keeps every comment, blank line and unrelated key byte for byte;
// only the members setup owns are added, replaced or removed. Writes go to
// a temporary file that is renamed over the original, so Cursor never reads
// a half-written file.
package setup
