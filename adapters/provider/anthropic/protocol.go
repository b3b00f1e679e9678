package anthropic

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"keygate/adapters/provider/compat"
	"keygate/adapters/provider/protocol"
	"keygate/domain/llm"
	"keygate/domain/modelfamily"
)

// APIVersion is the anthropic-version header sent with every request, calls
// and model listings alike.
const APIVersion = "2023-06-01"

// Messages is the Anthropic Messages protocol.
func Messages() protocol.Protocol {
	return protocol.Protocol{
		Kind:     llm.ProviderAnthropic,
		Name:     label,
		Title:    "Anthropic Messages",
		URL:      protocol.StandardPath("/v1/messages"),
		Auth:     func(h http.Header, apiKey string, _ compat.Quirks) { setAuth(h, apiKey) },
		Headers:  headers,
		Reserved: []string{"model", "system", "messages", "tools", "stream"},
		AppendRequest: func(dst []byte, req llm.Request, o protocol.RequestOptions) ([]byte, error) {
			return AppendRequest(dst, req, Options{Extras: o.Extras, ThinkingCarrier: o.Quirks.DeepSeek})
		},
		NewDecoder: func() protocol.Decoder { return &Decoder{} },
		Models: protocol.Models{Label: label, List: listModels,
			Auth: func(h http.Header, apiKey string, _ *url.URL) { setAuth(h, apiKey) }},
		Vendor: modelfamily.VendorAnthropic, VendorHost: "api.anthropic.com",
	}
}

// FastModeBeta is the beta that fast mode (speed "fast") needs.
const FastModeBeta = "fast-mode-2026-02-01"

// headers adds the fast mode beta, and the betas of a relayed Anthropic
// request, to the anthropic-beta header, keeping the betas a model's
// custom headers name.
func headers(h http.Header, req llm.Request) {
	if req.ServiceTier == llm.ServiceTierFast {
		addBetas(h, FastModeBeta)
	}
	if n := req.Native; n != nil && n.Kind == llm.ProviderAnthropic && n.Headers["anthropic-beta"] != "" {
		addBetas(h, n.Headers["anthropic-beta"])
	}
}

// addBetas adds each of the comma-separated betas the header lacks.
func addBetas(h http.Header, add string) {
	betas := h.Get("anthropic-beta")
	have := map[string]bool{}
	for _, b := range strings.Split(betas, ",") {
		have[strings.TrimSpace(b)] = true
	}
	for _, b := range strings.Split(add, ",") {
		b = strings.TrimSpace(b)
		if b == "" || have[b] {
			continue
		}
		have[b] = true
		if betas != "" {
			betas += ","
		}
		betas += b
	}
	h.Set("anthropic-beta", betas)
}

// setAuth sends the key in x-api-key, with the API version.
func setAuth(h http.Header, apiKey string) {
	h.Set("x-api-key", apiKey)
	h.Set("anthropic-version", APIVersion)
}

// listPages bounds a listing: 100 pages of 100 models.
const listPages = 100

// listModels pages through the model list with after_id while has_more.
func listModels(ctx context.Context, base string, get protocol.GetJSON) ([]string, error) {
	var ids []string
	after := ""
	for range listPages {
		u, _ := url.Parse(base)
		v := url.Values{"limit": {"100"}}
		if after != "" {
			v.Set("after_id", after)
		}
		u.RawQuery = v.Encode()
		var page struct {
			Data    []struct{ ID string } `json:"data"`
			HasMore bool                  `json:"has_more"`
			LastID  string                `json:"last_id"`
		}
		if err := get(ctx, u.String(), &page); err != nil {
			return nil, err
		}
		for _, m := range page.Data {
			ids = append(ids, m.ID)
		}
		if !page.HasMore || page.LastID == "" {
			break
		}
		after = page.LastID
	}
	return ids, nil
}
