// Package agentspec holds the end-to-end specs of Cursor agent features
// that Keygate runs itself: it starts the real composition root
// (app.Initialize) on a laptop configuration over a temporary SQLite data
// dir, with fake provider endpoints on every provider protocol, a fake
// SearXNG instance and a fake Brave Search API speaking their documented
// JSON, and an outbound HTTP proxy standing for the public web, and drives
// the Cursor client simulator through the intercepting proxy. Each spec is
// a Cursor feature and its outcome. The package has no code of its own;
// its specs are the check.
//
// Place in the hexagon: none — it drives the whole stack from outside, as
// a developer's Cursor would, and sits under app/ because it starts the
// composition root.
package agentspec
