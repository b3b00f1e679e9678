package unary

import (
	"context"
	"net/http"

	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/picker"
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

// Upstream calls Cursor's own backend for the routes whose answer merges
// Cursor's models with Keygate's.
type Upstream interface {
	// Call sends req to procedure (e.g. "/aiserver.v1.AiService/AvailableModels")
	// with the client's headers and decodes the answer into resp, keeping
	// unknown fields. Any error means "upstream unavailable": the caller then
	// answers with Keygate's models alone. It honours ctx cancellation.
	Call(ctx context.Context, procedure string, header http.Header, req, resp proto.Message) error
}
