package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"keygate/ports"
)

// Poster posts to webhooks.
type Poster struct {
	client *http.Client
	// Timeout bounds one attempt; Attempts is how many are made; Backoff
	// the wait after the first failure, doubled after each next.
	Timeout  time.Duration
	Attempts int
	Backoff  time.Duration
}

var _ ports.WebhookPoster = (*Poster)(nil)

// New returns a poster over client: three attempts of ten seconds each,
// a second apart and then two.
func New(client *http.Client) *Poster {
	return &Poster{client: client, Timeout: 10 * time.Second, Attempts: 3, Backoff: time.Second}
}

// maxAnswer bounds the answer bytes read (and thrown away) per attempt.
const maxAnswer = 64 << 10

// errRetry marks a failure worth another attempt.
var errRetry = errors.New("retryable")

// PostWebhook implements ports.WebhookPoster.
func (p *Poster) PostWebhook(ctx context.Context, rawURL string, body []byte) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New("post webhook: not an http(s) URL")
	}
	wait := p.Backoff
	for attempt := 1; ; attempt++ {
		err = p.once(ctx, rawURL, body)
		if err == nil {
			return nil
		}
		if !errors.Is(err, errRetry) || attempt >= p.Attempts {
			return fmt.Errorf("post webhook to %s (attempt %d): %w", u.Host, attempt, err)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("post webhook to %s: %w", u.Host, ctx.Err())
		case <-t.C:
		}
		wait *= 2
	}
}

func (p *Poster) once(ctx context.Context, rawURL string, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return errors.New("build request")
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		// The error of a request names its URL: keep only what failed.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("%w: %w", errRetry, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return fmt.Errorf("%w: answered %d", errRetry, resp.StatusCode)
	default:
		return fmt.Errorf("answered %d", resp.StatusCode)
	}
}
