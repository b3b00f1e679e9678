package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/cursor/compile"
	"keygate/adapters/cursor/transport"
	"keygate/app/run"
	"keygate/domain/turn"
	"keygate/ports"
)

// Resolver resolves a Cursor model id to a configured Keygate model: the
// endpoint to call (URL per the provider's RequestURL rules, opened API
// key) and its configuration. It returns an error matching
// ports.ErrNotFound when the id is not configured. app/control.Catalog
// implements it.
type Resolver interface {
	Endpoint(ctx context.Context, modelID string) (ports.Endpoint, ports.ModelConfig, error)
}

// Foreign serves a turn whose model is not a Keygate model (for example by
// relaying it to Cursor). It has the contract of transport.RunHandler.
type Foreign func(ctx context.Context, turn *transport.Turn) error

// Options configure a Handler.
type Options struct {
	// Engine, Conversations and Models are required.
	Engine        *run.Engine
	Conversations ports.ConversationStore
	Models        Resolver
	// Runs, when set, names a subagent's parent run by its run id (the
	// latest run of the parent request id); without it the parent request
	// id stands in.
	Runs ports.RunStore
	// Foreign, when set, serves turns for models Keygate does not know;
	// otherwise those turns end with a NotFound error naming the model.
	Foreign Foreign
	// Blobs, when set, stores the images a user attaches; the engine reads
	// them back for the provider (run.Options.Blobs must be the same
	// store). Without it only inline image bytes reach the model.
	Blobs ports.BlobStore
	// Search, when set, runs the web searches the user approved and offers
	// WebSearch to the model (unless the client's request context switches
	// it off); Fetch does the same for WebFetch.
	Search ports.WebSearcher
	Fetch  ports.WebFetcher
	// WebPerUser bounds the web requests (searches and fetches) of one
	// user in flight on this handler, across their calls and turns
	// (default DefaultWebPerUser); more wait for a slot.
	WebPerUser int
	// Memories, when set, gives each turn its user's memories (Cursor's
	// memories are kept by the server, never sent back by the client): the
	// memories channel, appended when they change.
	Memories Memories
	// AckTimeout bounds the wait for the client's KV replies (default 10 s).
	// A checkpoint whose blobs are not acknowledged in time is not published.
	AckTimeout time.Duration
	// Now defaults to time.Now.
	Now    func() time.Time
	Logger *zap.Logger
}

// Memories recalls the memories of the user on ctx (identity.FromContext),
// in the order they were added, bounded by the implementation. It honours
// ctx cancellation.
type Memories interface {
	Recall(ctx context.Context) (turn.Memories, error)
}

// Handler serves Cursor turns with the run engine.
type Handler struct {
	o   Options
	log *zap.Logger
	mem *convMemory
	// schemas keeps the MCP tool schemas the turns' request contexts
	// repeat, rendered once.
	schemas *compile.Schemas
	// web holds the web requests in flight per user.
	web *webSlots
}

// maxSchemas bounds the rendered MCP input schemas kept across turns: a
// few workspaces' tools (a schema is a few hundred bytes to a few KiB).
const maxSchemas = 1024

var _ transport.RunHandler = (*Handler)(nil)

// New checks o and returns a Handler.
func New(o Options) (*Handler, error) {
	if o.Engine == nil || o.Conversations == nil || o.Models == nil {
		return nil, errors.New("new cursor run handler: engine, conversations and models are required")
	}
	if o.WebPerUser <= 0 {
		o.WebPerUser = DefaultWebPerUser
	}
	if o.AckTimeout <= 0 {
		o.AckTimeout = 10 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return &Handler{o: o, log: o.Logger, mem: newConvMemory(o.Now), schemas: compile.NewSchemas(maxSchemas),
		web: newWebSlots(o.WebPerUser, webWait)}, nil
}

// ServeRun implements transport.RunHandler. A turn that fails ends with the
// Connect error connectError makes of its failure, logged once.
func (h *Handler) ServeRun(ctx context.Context, turn *transport.Turn) error {
	s := newSession(ctx, h, turn)
	defer s.finish()
	err := s.resolve(ctx)
	var foreign *foreignModelError
	if errors.As(err, &foreign) && h.o.Foreign != nil {
		return h.o.Foreign(ctx, turn)
	}
	if err == nil {
		s.inbox.listen(ctx)
		if err = s.prepare(ctx); err == nil {
			err = s.serve(ctx)
		}
	}
	return endTurn(s.log, err)
}

// foreignModelError is a model id that is not configured in Keygate; it
// matches ports.ErrNotFound.
type foreignModelError struct{ model string }

func (e *foreignModelError) Error() string {
	return fmt.Sprintf("model %q is not configured in Keygate", e.model)
}

func (e *foreignModelError) Is(target error) bool { return target == ports.ErrNotFound }
