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
	// Cloud are the cloud account settings of a protocol that signs its
	// requests or fetches tokens (Bedrock, Vertex AI); zero for the others.
	// They are not secret and stored in clear; secret material (an AWS
	// secret key, a service-account JSON) is a key of the pool, sealed.
	Cloud CloudSettings
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

// CredentialSource is where a cloud protocol takes its credentials from.
type CredentialSource string

// The credential sources. Only CredentialKeys reads the key pool; the others
// are ambient (the process's environment, files or the instance it runs on)
// and a provider using them needs no key.
const (
	// CredentialKeys: the pool's keys are the credentials (AWS
	// "ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]", a Google
	// service-account JSON), sealed like API keys. The zero value.
	CredentialKeys CredentialSource = ""
	// CredentialProfile: a named profile of the shared config and
	// credentials files (CloudSettings.Profile).
	CredentialProfile CredentialSource = "profile"
	// CredentialWebIdentity: a token file exchanged for a role's
	// credentials (Kubernetes service accounts: CloudSettings.RoleARN and
	// WebIdentityTokenFile).
	CredentialWebIdentity CredentialSource = "web_identity"
	// CredentialInstanceRole: the role of the machine Keygate runs on, from
	// the instance metadata service (the one link-local address the outbound
	// policy opens, and only for this source).
	CredentialInstanceRole CredentialSource = "instance_role"
	// CredentialDefault: the cloud SDK's default chain (environment, shared
	// files, web identity, container or instance role; Google's
	// application-default credentials).
	CredentialDefault CredentialSource = "default"
)

// Keyless reports whether the source needs no key in the pool.
func (s CredentialSource) Keyless() bool { return s != CredentialKeys }

// CloudSettings are the clear settings of a cloud provider's account.
type CloudSettings struct {
	// Region is the cloud region requests are signed for (us-east-1) or
	// the Google location (us-central1, global).
	Region string `json:"region,omitempty"`
	// Project is the Google Cloud project id.
	Project string `json:"project,omitempty"`
	// Source is where credentials come from.
	Source CredentialSource `json:"source,omitempty"`
	// Profile names a shared-config profile (CredentialProfile).
	Profile string `json:"profile,omitempty"`
	// RoleARN is the role assumed with a web identity token.
	RoleARN string `json:"role_arn,omitempty"`
	// WebIdentityTokenFile is the path of the web identity token.
	WebIdentityTokenFile string `json:"web_identity_token_file,omitempty"`
}

// IsZero reports settings of a provider that is not a cloud one.
func (c CloudSettings) IsZero() bool { return c == CloudSettings{} }
