package protocol

import (
	"errors"
	"fmt"
	"io"
	"net/http"
)

// MaxCredentialBody bounds each answer a cloud SDK reads on Keygate's
// behalf (STS, the instance metadata service, a token endpoint, a model
// listing). Those readers come from the SDKs and take no limit of their
// own; the largest legitimate answer, a page of 1,000 Bedrock inference
// profiles, is well under a megabyte.
const MaxCredentialBody = 16 << 20

// ErrBodyTooLarge means an answer read through a client of CredentialsFor
// went past MaxCredentialBody; the read fails there instead of buffering
// the rest.
var ErrBodyTooLarge = errors.New("answer too large")

// boundBodies returns a client like c whose response bodies fail past max
// bytes. nil stays nil, so that an absent client keeps meaning "none".
func boundBodies(c *http.Client, max int64) *http.Client {
	if c == nil {
		return nil
	}
	bounded := *c
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	bounded.Transport = boundedTransport{base: base, max: max}
	return &bounded
}

type boundedTransport struct {
	base http.RoundTripper
	max  int64
}

func (t boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	resp.Body = &boundedBody{rc: resp.Body, left: t.max, max: t.max, host: req.URL.Host}
	return resp, nil
}

// boundedBody reads at most max bytes, then fails with ErrBodyTooLarge.
type boundedBody struct {
	rc   io.ReadCloser
	left int64
	max  int64
	host string
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly max bytes from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, fmt.Errorf("read answer of %s: over %d bytes: %w", b.host, b.max, ErrBodyTooLarge)
		}
		return 0, err // io.EOF must reach the reader as is
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err // io.EOF must reach the reader as is
}

func (b *boundedBody) Close() error { return b.rc.Close() }
