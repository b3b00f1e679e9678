package vertex

import (
	"context"
	"net/url"
	"strings"

	"keygate/adapters/provider/protocol"
)

// listPages bounds a listing: 20 pages of 100 models.
const listPages = 20

// publisherModels lists a publisher's models in Vertex AI's Model Garden
// (GET {origin}/v1beta1/publishers/{publisher}/models, paged with
// pageToken; the API exists in v1beta1 only), giving the ids calls name:
// "publishers/anthropic/models/claude-sonnet-4-5" is claude-sonnet-4-5.
// The listing is the publisher's catalogue, not what the project has
// enabled: an Anthropic model must still be enabled in the project's Model
// Garden before a call succeeds.
func publisherModels(publisher string) func(ctx context.Context, candidate string, get protocol.GetJSON) ([]string, error) {
	return func(ctx context.Context, candidate string, get protocol.GetJSON) ([]string, error) {
		u, err := url.Parse(candidate)
		if err != nil {
			return nil, err
		}
		u.Path, u.RawPath = "/v1beta1/publishers/"+publisher+"/models", ""
		var ids []string
		token := ""
		for range listPages {
			v := url.Values{"pageSize": {"100"}}
			if token != "" {
				v.Set("pageToken", token)
			}
			u.RawQuery = v.Encode()
			var page struct {
				PublisherModels []struct {
					Name string `json:"name"`
				} `json:"publisherModels"`
				NextPageToken string `json:"nextPageToken"`
			}
			if err := get(ctx, u.String(), &page); err != nil {
				return nil, err
			}
			for _, m := range page.PublisherModels {
				if _, id, ok := strings.Cut(m.Name, "/models/"); ok && id != "" {
					ids = append(ids, id)
				}
			}
			if page.NextPageToken == "" || page.NextPageToken == token {
				break
			}
			token = page.NextPageToken
		}
		return ids, nil
	}
}
