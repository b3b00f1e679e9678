package postgres

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/domain/token"
	"keygate/gen/sqlc/pgdb"
	"keygate/ports"
)

func (t tx) InsertServiceAccount(ctx context.Context, a ports.ServiceAccount) error {
	return interpretError(ctx, t.q.InsertServiceAccount(ctx, pgdb.InsertServiceAccountParams(relstore.ServiceAccountOf[time.Time](a))))
}

func (t tx) ServiceAccountByHash(ctx context.Context, h token.Hash) (ports.ServiceAccount, error) {
	row, err := t.q.ServiceAccountByHash(ctx, h[:])
	if err != nil {
		return ports.ServiceAccount{}, interpretError(ctx, err)
	}
	return relstore.ServiceAccountColumns[time.Time](row).ServiceAccount(), nil
}

func (t tx) ListServiceAccounts(ctx context.Context) ([]ports.ServiceAccount, error) {
	rows, err := t.q.ListServiceAccounts(ctx)
	if err != nil {
		return nil, interpretError(ctx, err)
	}
	return relstore.Pick(rows, func(r pgdb.ServiceAccount) ports.ServiceAccount {
		return relstore.ServiceAccountColumns[time.Time](r).ServiceAccount()
	}), nil
}

func (t tx) RevokeServiceAccount(ctx context.Context, id string, at time.Time) (bool, error) {
	n, err := t.q.RevokeServiceAccount(ctx, pgdb.RevokeServiceAccountParams{ID: id, RevokedAt: at})
	return n > 0, interpretError(ctx, err)
}

func (t tx) TouchServiceAccount(ctx context.Context, id string, at time.Time) (bool, error) {
	n, err := t.q.TouchServiceAccount(ctx, pgdb.TouchServiceAccountParams{ID: id, LastUsedAt: at})
	return n > 0, interpretError(ctx, err)
}
