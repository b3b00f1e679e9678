package ports

import (
	"context"
	"time"

	"keygate/domain/access"
	"keygate/domain/token"
)

// ServiceAccount is an API key for the control API with a role, for
// automation (a deploy pipeline managing providers and models). Its Key
// is a token's stored form: hash, hint and life cycle, never its text; the
// key's Owner names the account (UserID "sa:" and the key's id, Name the
// account's name).
type ServiceAccount struct {
	Key token.Token
	// Role is access.Admin or access.ReadOnly.
	Role access.Role
	// CreatedBy is the user id of the administrator who created it.
	CreatedBy string
}

// ServiceAccountStore keeps service accounts. Revoked accounts stay
// stored so lists can show them.
//
// All methods return ctx.Err() (wrapped) on a cancelled context and then
// have written nothing.
type ServiceAccountStore interface {
	// CreateServiceAccount stores a, or returns ErrConflict when its id or
	// hash is stored already.
	CreateServiceAccount(ctx context.Context, a ServiceAccount) error

	// ServiceAccountByHash returns the account whose key hashes to h,
	// revoked or not, or ErrNotFound; the lookup is by an index on the
	// hash.
	ServiceAccountByHash(ctx context.Context, h token.Hash) (ServiceAccount, error)

	// ServiceAccounts returns every account, newest first.
	ServiceAccounts(ctx context.Context) ([]ServiceAccount, error)

	// RevokeServiceAccount sets the key's RevokedAt to at, or returns
	// ErrNotFound; revoking again keeps the first time.
	RevokeServiceAccount(ctx context.Context, id string, at time.Time) error

	// TouchServiceAccount records a use at at (an earlier time than the
	// stored one changes nothing), or returns ErrNotFound.
	TouchServiceAccount(ctx context.Context, id string, at time.Time) error
}
