// Package websearch implements ports.WebSearcher over the search backends
// an operator can configure: a SearXNG instance's JSON API (self-hosted,
// no key) and the Brave Search API (a commercial index, by key). Each
// request is one HTTP GET through the HTTP client the composition root
// gives it (the outbound policy's, which keeps a key on its origin),
// bounded in time and in response bytes; results are reduced to title,
// URL and a plain-text snippet.
//
// Place in the hexagon: an outbound adapter implementing a port; the
// composition root chooses the backend (app/config) and hands it to the
// Cursor run layer, which runs a search once the user approved it.
package websearch
