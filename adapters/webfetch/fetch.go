package webfetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/html/charset"

	"keygate/adapters/egress"
	"keygate/ports"
)

// Defaults of Options.
const (
	DefaultTimeout  = 30 * time.Second
	DefaultMaxBytes = 4 << 20
	DefaultMaxText  = 200_000
	// maxURL bounds the URL a model may ask for.
	maxURL = 4096
	// maxRedirects counts requests, the first included.
	maxRedirects = 5
)

// UserAgent names Keygate to the sites it fetches.
const UserAgent = "Keygate-WebFetch/1.0 (an AI coding agent's web fetch, on behalf of a user who approved it)"

// Options configure a Fetcher.
type Options struct {
	// Transport dials every connection; it must be the outbound policy's
	// public-only transport (egress.Policy.Public().Transport()). Required.
	Transport http.RoundTripper
	// Timeout bounds one fetch, body included (DefaultTimeout).
	Timeout time.Duration
	// MaxBytes bounds the body read, after content decoding
	// (DefaultMaxBytes).
	MaxBytes int64
	// MaxText bounds the text handed on, in bytes (DefaultMaxText).
	MaxText int
}

// Fetcher reads web pages for the agent. It is safe for concurrent use.
type Fetcher struct {
	o      Options
	client *http.Client
}

var _ ports.WebFetcher = (*Fetcher)(nil)

// New checks o and returns a Fetcher.
func New(o Options) (*Fetcher, error) {
	if o.Transport == nil {
		return nil, errors.New("web fetch: a transport is required")
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxText <= 0 {
		o.MaxText = DefaultMaxText
	}
	return &Fetcher{o: o, client: &http.Client{Transport: o.Transport, CheckRedirect: redirects}}, nil
}

// redirects follows a redirect to any origin (a fetch has no credentials
// to leak) while it stays an http(s) URL without user info, up to
// maxRedirects requests in all; every hop is dialled by the same
// transport, so the public-only policy decides each.
func redirects(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if err := checkURL(req.URL); err != nil {
		return fmt.Errorf("redirect refused: %w", err)
	}
	return nil
}

// checkURL accepts http(s) URLs with a host and without user info.
func checkURL(u *url.URL) error {
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("only http:// and https:// URLs can be fetched")
	case u.Host == "":
		return errors.New("the URL has no host")
	case u.User != nil:
		return errors.New("a URL with user info (credentials) is not fetched")
	}
	return nil
}

// Fetch implements ports.WebFetcher.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (ports.WebPage, error) {
	rawURL = strings.TrimSpace(rawURL)
	if len(rawURL) > maxURL {
		return ports.WebPage{}, fmt.Errorf("fetch: the URL is longer than %d bytes", maxURL)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return ports.WebPage{}, fmt.Errorf("fetch: not a URL: %w", err)
	}
	if err := checkURL(u); err != nil {
		return ports.WebPage{}, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	ctx, cancel := context.WithTimeout(ctx, f.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return ports.WebPage{}, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,application/json;q=0.8,*/*;q=0.1")
	resp, err := f.client.Do(req)
	if err != nil {
		host := u.Hostname()
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
			if hop, perr := url.Parse(uerr.URL); perr == nil {
				host = hop.Hostname()
			}
		}
		err = egress.Redact(err, host)
		if ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
			return ports.WebPage{}, fmt.Errorf("fetch %s: no answer within %s: %w", rawURL, f.o.Timeout, err)
		}
		return ports.WebPage{}, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	defer resp.Body.Close()
	page := ports.WebPage{URL: resp.Request.URL.String(), Status: resp.StatusCode}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return page, fmt.Errorf("fetch %s: HTTP %d %s", page.URL, resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.o.MaxBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return page, fmt.Errorf("fetch %s: the page did not arrive within %s: %w", page.URL, f.o.Timeout, ctx.Err())
		}
		return page, fmt.Errorf("fetch %s: read the page: %w", page.URL, egress.Redact(err, resp.Request.URL.Hostname()))
	}
	if int64(len(body)) > f.o.MaxBytes {
		body, page.Truncated = body[:f.o.MaxBytes], true
	}
	media, params := mediaType(resp.Header.Get("Content-Type"), body)
	page.ContentType = media
	conv, err := toText(ctx, media, params, body, page.URL)
	switch {
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return page, fmt.Errorf("fetch %s: the page was not converted within %s: %w", page.URL, f.o.Timeout, ctx.Err())
	case err != nil:
		return page, fmt.Errorf("fetch %s: %w", page.URL, err)
	}
	text, note := conv.Text, ""
	longer := fmt.Sprintf("[Keygate cut the page here: it is longer than %d bytes.]", min(f.o.MaxBytes, int64(f.o.MaxText)))
	switch {
	case len(text) > f.o.MaxText:
		text, note = cut(text, f.o.MaxText), longer
	case conv.Cut:
		note = overBudget
	case page.Truncated:
		note = longer
	}
	if note != "" {
		text += "\n\n" + note
	}
	page.Text, page.Truncated = text, note != ""
	return page, nil
}

// overBudget ends the text of a page whose conversion did not fit its
// budget.
const overBudget = "[Keygate stopped converting the page here: its markup is so large or nests lists, quotes or emphasis so deeply that converting the rest would take more work than Keygate spends on a page of its size; the rest is left out.]"

// mediaType is the response's media type, sniffed from the body when the
// server names none.
func mediaType(header string, body []byte) (string, map[string]string) {
	if header == "" {
		header = http.DetectContentType(body)
	}
	media, params, err := mime.ParseMediaType(header)
	if err != nil {
		media, params, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	return strings.ToLower(media), params
}

// toText turns a body of media type into text for a model; HTML is
// converted within its budget and ctx.
func toText(ctx context.Context, media string, params map[string]string, body []byte, pageURL string) (conversion, error) {
	switch {
	case media == "text/html" || media == "application/xhtml+xml":
		r, err := charset.NewReader(bytes.NewReader(body), media+"; charset="+params["charset"])
		if err != nil {
			r = bytes.NewReader(body)
		}
		return markdown(ctx, r, len(body), pageURL)
	case isText(media):
		r, err := charset.NewReader(bytes.NewReader(body), media+"; charset="+params["charset"])
		if err != nil {
			return conversion{Text: strings.ToValidUTF8(string(body), "\uFFFD")}, nil
		}
		b, err := io.ReadAll(r)
		if err != nil {
			return conversion{}, fmt.Errorf("decode %s: %w", media, err)
		}
		return conversion{Text: strings.ToValidUTF8(string(b), "\uFFFD")}, nil
	}
	return conversion{}, fmt.Errorf("%w: %s", ports.ErrUnsupportedContent, media)
}

// isText reports media types a model reads as they are.
func isText(media string) bool {
	if strings.HasPrefix(media, "text/") {
		return true
	}
	switch media {
	case "application/json", "application/xml", "application/javascript", "application/x-yaml", "application/yaml", "application/toml":
		return true
	}
	return strings.HasSuffix(media, "+json") || strings.HasSuffix(media, "+xml")
}

// cut shortens s to at most n bytes without splitting a UTF-8 sequence.
func cut(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
