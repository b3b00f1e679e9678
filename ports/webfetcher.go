package ports

import (
	"context"
	"errors"
)

// WebFetcher reads a web page for the agent's WebFetch tool, once the user
// approved the fetch. The URL comes from a model and is untrusted: an
// implementation must never connect to loopback, private, link-local or
// other non-public addresses, nor to Keygate's own listeners.
type WebFetcher interface {
	// Fetch reads rawURL (http or https) and returns the page as text a
	// model can read. A page over the implementation's byte cap, or whose
	// conversion to text would cost more work than its bound for a page of
	// that size, is cut and says so; a fetch over its time bound fails,
	// conversion included. A destination the outbound policy refuses fails
	// with an error matching ErrDestinationRefused; an HTTP error status
	// fails with an error naming it. Error messages are for the user and
	// the model: they never name an address of Keygate's network (its DNS
	// resolver, its outbound proxy, what an internal name resolves to). A
	// cancelled ctx yields ctx.Err() (wrapped), and stops a conversion.
	Fetch(ctx context.Context, rawURL string) (WebPage, error)
}

// WebPage is a fetched page.
type WebPage struct {
	// URL is the page's final URL, after redirects.
	URL string
	// Status is the HTTP status code; ContentType the response's media type.
	Status      int
	ContentType string
	// Text is the page as Markdown (HTML) or as the plain text it was.
	Text string
	// Truncated says the page was longer than the fetcher's cap.
	Truncated bool
}

// ErrUnsupportedContent is a fetched response whose media type is not text
// a model can read (an image, an archive, a binary).
var ErrUnsupportedContent = errors.New("content type is not text")
