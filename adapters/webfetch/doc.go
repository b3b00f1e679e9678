// Package webfetch implements ports.WebFetcher: it reads a page a model
// asked for (after the user approved it) and turns it into text the model
// can read.
//
// Where it may go. Every connection is dialled by the outbound policy's
// public-only view (egress.Policy.Public): never loopback, link-local (the
// cloud metadata address), private or shared addresses, nor Keygate's own
// listeners, on a laptop too and whatever the allow-list says, decided on
// the address actually connected after name resolution.
//
// Redirects. A fetch carries no credentials (no Authorization, no cookies,
// no configured headers), so a redirect to another origin leaks nothing
// and is followed, up to five requests in all, to http or https URLs
// without user info only; every hop is dialled by the same public-only
// policy, so a redirect to a private address fails like a direct request
// to it.
//
// Bounds. One fetch, body and conversion included, is bounded in time
// (Options.Timeout) and by its caller's context: the converter renders
// nothing more once either is done. The body is read up to
// Options.MaxBytes after content decoding (a gzip bomb stops there) and
// the rest is dropped, which the page says; the text handed on is cut at
// Options.MaxText bytes. Converting HTML costs work proportional to the
// page: the converter's work grows with nesting depth times content (lists
// 250 deep over 12 KB of lines once took 1.7 GB and two seconds), so the
// parsed tree is charged an upper bound of that work node by node, and
// only the beginning that fits 64 units per byte of the page is
// converted; at most 200,000 tags and texts are parsed. A page cut short
// says so.
//
// Errors name the host asked for and what went wrong, never the DNS
// resolver, the outbound proxy, Keygate's own addresses or the address an
// internal name resolved to (egress.Redact).
//
// Text. HTML is converted to Markdown with
// github.com/JohannesKaufmann/html-to-markdown: headings, lists, links,
// tables and code blocks are what a model needs from documentation pages,
// and Markdown keeps them in a tenth of the bytes; scripts, styles and
// page chrome (navigation, footers, forms) are dropped. The page is decoded
// from its declared charset first (golang.org/x/net/html/charset). Plain
// text and JSON are passed as they are; other media types (images,
// archives, PDFs) are refused with ports.ErrUnsupportedContent.
//
// Place in the hexagon: an outbound adapter implementing a port; the
// composition root gives it the public-only transport and hands it to the
// Cursor run layer.
package webfetch
