package ports

import "context"

// WebSearcher searches the web for the agent's WebSearch tool, once the
// user approved the search. Implementations are configured by an
// operator (a SearXNG instance, a commercial search API); the query comes
// from a model and is untrusted text.
type WebSearcher interface {
	// Search returns at most max results for query, best first; max <= 0
	// means the implementation's default. No results is an empty slice and
	// no error. Titles and snippets are plain text (markup removed). The
	// backend's failures are wrapped errors whose message says which backend
	// failed and why, for the model to read; they never contain an API key
	// nor an address of Keygate's network (the backend's, the resolver's).
	// A cancelled or expired ctx yields ctx.Err() (wrapped). Every request
	// is bounded in bytes and time by the implementation.
	Search(ctx context.Context, query string, max int) ([]WebResult, error)
}

// WebResult is one search result.
type WebResult struct {
	Title string
	URL   string
	// Snippet is the backend's excerpt of the page; may be empty.
	Snippet string
}
