package ports

import (
	"context"
	"encoding/json"
	"time"

	"keygate/domain/llm"
	"keygate/domain/routing"
)

// ProviderStore holds the providers models are called at: where (protocol,
// base URL, headers) and with which keys. Keys and header values are
// stored only as the opaque ciphertext a secret box produced; the store
// never sees a plaintext key and does not know how it was sealed.
//
// All methods return ctx.Err() (wrapped) on a cancelled context and then
// have written nothing.
type ProviderStore interface {
	// Providers returns every provider with its keys, ordered by Name, then
	// ID; each provider's keys in their Position order, then ID.
	Providers(ctx context.Context) ([]Provider, error)

	// Provider returns one provider with its keys, or ErrNotFound.
	Provider(ctx context.Context, id string) (Provider, error)

	// PutProvider creates or replaces the provider with p.ID together with
	// its keys, in one transaction: keys of the stored provider that p.Keys
	// does not name are deleted. A replacement keeps the original CreatedAt
	// of the provider and of every key it keeps (by ID); UpdatedAt is set
	// by the store. A key id belonging to another provider is ErrConflict.
	PutProvider(ctx context.Context, p Provider) error

	// SetKeyEnabled enables or disables one key of a provider without
	// touching anything else, so that the router can take a failing key out
	// of the pool while an administrator edits the provider; reason says
	// why a key was disabled ("" when enabled). ErrNotFound when the
	// provider has no such key.
	SetKeyEnabled(ctx context.Context, providerID, keyID string, enabled bool, reason string) error

	// DeleteProvider removes a provider and its keys. ErrNotFound when it
	// does not exist; ErrConflict, deleting nothing, while a model
	// configuration references it.
	DeleteProvider(ctx context.Context, id string) error
}

// Provider is one upstream endpoint and its key pool.
type Provider struct {
	ID   string
	Name string
	Kind llm.ProviderKind
	// BaseURL is where requests go: the protocol's standard path is
	// appended unless UseFullURL says to send requests to it verbatim.
	BaseURL    string
	UseFullURL bool
	// SealedHeaders are the custom headers as ciphertext, like the keys:
	// opaque to the store; nil for none.
	SealedHeaders []byte
	// ClearHeaders are custom headers an earlier Keygate stored in clear
	// (a JSON object of string headers), nil for none. Keygate seals them
	// into SealedHeaders at start and then stores nil here.
	ClearHeaders json.RawMessage
	// Region labels the deployment for people (for example "eu-west");
	// empty for none.
	Region string
	// KeyStrategy picks among the enabled keys.
	KeyStrategy routing.KeyStrategy
	// CoolDown is how long a key that answered 429 or 401 rests when the
	// provider said nothing (no Retry-After); 0 means the router's default.
	CoolDown time.Duration
	Keys     []ProviderKey
	// CreatedAt and UpdatedAt are set by the store.
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ProviderKey is one key of a provider's pool.
type ProviderKey struct {
	ID string
	// Position orders the keys for round-robin and for people.
	Position int
	// Sealed is the key as ciphertext; opaque to the store.
	Sealed []byte
	// Weight is the key's share under KeysWeighted; at least 1.
	Weight int
	// Enabled keys are used; a disabled key stays stored until deleted.
	Enabled bool
	// DisabledReason says why a key was disabled, empty when enabled.
	DisabledReason string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}
