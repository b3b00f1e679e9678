package unary

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/picker"
	"keygate/ports"
)

// Model is one Keygate model as the Cursor picker shows it.
type Model struct {
	// ID is opaque to the client; it comes back as requested_model.model_id.
	ID string
	// DisplayName is the picker label; ShortName the input-box label
	// (DisplayName when empty).
	DisplayName string
	ShortName   string
	// Badge labels the model in the picker, e.g. the provider host.
	Badge string
	// Description is shown as the tooltip (Markdown).
	Description string
	// Thinking and Images say what the model supports.
	Thinking bool
	Images   bool
	// Picker are the parameters the model offers in the picker.
	Picker picker.Options
}

// Catalog lists the models Keygate serves to the calling client.
type Catalog interface {
	// Models returns the caller's models in picker order; the first is the
	// default. The request's headers ride along for per-user catalogs. An
	// empty list is not an error. It honours ctx cancellation.
	Models(ctx context.Context, header http.Header) ([]Model, error)
}

// ModelSource lists the model configurations Cursor's picker offers: the
// enabled ones, in picker order (app/control.Publishing implements it).
type ModelSource interface {
	Published(ctx context.Context) ([]ports.ModelConfig, error)
}

// Configured is the Catalog of the configured models. Each is labelled
// with its provider's host, so users see where a turn goes, and offers the
// parameters its provider supports (picker.For).
func Configured(src ModelSource) Catalog { return configured{src: src} }

type configured struct{ src ModelSource }

func (c configured) Models(ctx context.Context, _ http.Header) ([]Model, error) {
	cfgs, err := c.src.Published(ctx)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	out := make([]Model, 0, len(cfgs))
	for _, cfg := range cfgs {
		p := picker.For(cfg)
		out = append(out, Model{
			ID:          cfg.ID,
			DisplayName: cfg.DisplayName,
			Badge:       hostOf(cfg.BaseURL),
			Description: cfg.Tooltip,
			Thinking:    len(p.Efforts) > 0,
			Images:      cfg.SupportsImages,
			Picker:      p,
		})
	}
	return out, nil
}

// hostOf is the host of a provider's base URL; empty when it does not
// parse.
func hostOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// Upstream calls Cursor's own backend for the routes whose answer merges
// Cursor's models with Keygate's.
type Upstream interface {
	// Call sends req to procedure (e.g. "/aiserver.v1.AiService/AvailableModels")
	// with the client's headers and decodes the answer into resp, keeping
	// unknown fields. Any error means "upstream unavailable": the caller then
	// answers with Keygate's models alone. It honours ctx cancellation.
	Call(ctx context.Context, procedure string, header http.Header, req, resp proto.Message) error
}
