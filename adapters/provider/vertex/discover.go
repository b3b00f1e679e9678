package vertex

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"keygate/adapters/provider/failure"
	"keygate/adapters/provider/protocol"
)

// maxListing bounds one page of a model listing.
const maxListing = 8 << 20

// discover lists a publisher's models at the origin of base with c's
// access token.
func discover(label, publisher string) func(ctx context.Context, base string, c protocol.Credentials) ([]string, error) {
	list := publisherModels(publisher)
	return func(ctx context.Context, base string, c protocol.Credentials) ([]string, error) {
		tok, err := token(ctx, c)
		if err != nil {
			return nil, err
		}
		client := c.HTTP
		if client == nil {
			client = &http.Client{}
		}
		get := func(ctx context.Context, u string, into any) error {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			if err != nil {
				return fmt.Errorf("list %s models: %w", label, err)
			}
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := client.Do(req)
			if err != nil {
				if refused := failure.Refused(label, err); refused != nil {
					return refused
				}
				return failure.Transient(label, "models request error", err)
			}
			defer resp.Body.Close()
			raw, err := io.ReadAll(io.LimitReader(resp.Body, maxListing))
			if err != nil {
				return failure.Transient(label, "models body read error", err)
			}
			if resp.StatusCode < 200 || resp.StatusCode > 299 {
				return failure.Status(label+" models", resp.StatusCode, raw)
			}
			if err := json.Unmarshal(raw, into); err != nil {
				return failure.Protocol(label, "models JSON error", err)
			}
			return nil
		}
		if _, err := url.Parse(base); err != nil {
			return nil, fmt.Errorf("list %s models: %w", label, err)
		}
		return list(ctx, base, get)
	}
}
