// Package sse reads Server-Sent Events from a provider response body.
//
// Place in the hexagon: adapter support, used only by the provider adapters
// under adapters/provider. It is hand-written rather than taken from a
// library because Keygate needs three things at once that the usual clients
// do not combine: no allocation per line or event in the steady state (the
// returned slices alias a reused buffer), a hard bound on line length (a
// broken upstream must not make us buffer without limit), and UTF-8 checks
// that fail the stream with a clear error instead of passing mojibake on.
//
// Deliberate deviations from the WHATWG rules: an event that is not closed
// by a blank line before EOF is still delivered, as every official provider
// SDK does (several published fixtures end that way); a lone CR is not a line
// terminator (no provider sends one).
package sse
