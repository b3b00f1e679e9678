package sqlite

import (
	"context"
	"time"

	"keygate/adapters/relstore"
	"keygate/domain/token"
	"keygate/gen/sqlc/sqlitedb"
	"keygate/ports"
)

func (t tx) InsertServiceAccount(ctx context.Context, a ports.ServiceAccount) error {
	return interpretError(ctx, t.q.InsertServiceAccount(ctx, sqlitedb.InsertServiceAccountParams(relstore.ServiceAccountOf[int64](a))))
}

func (t tx) ServiceAccountByHash(ctx context.Context, h token.Hash) (ports.ServiceAccount, error) {
	row, err := t.q.ServiceAccountByHash(ctx, h[:])
	if err != nil {
		return ports.ServiceAccount{}, interpretError(ctx, err)
	}
	return relstore.ServiceAccountColumns[int64](row).ServiceAccount(), nil
}

func (t tx) ListServiceAccounts(ctx context.Context) ([]ports.ServiceAccount, error) {
	rows, err := t.q.ListServiceAccounts(ctx)
	if err != nil {
		return nil, interpretError(ctx, err)
	}
	return relstore.Pick(rows, func(r sqlitedb.ServiceAccount) ports.ServiceAccount {
		return relstore.ServiceAccountColumns[int64](r).ServiceAccount()
	}), nil
}

func (t tx) RevokeServiceAccount(ctx context.Context, id string, at time.Time) (bool, error) {
	n, err := t.q.RevokeServiceAccount(ctx, sqlitedb.RevokeServiceAccountParams{ID: id, RevokedAt: ms(at)})
	return n > 0, interpretError(ctx, err)
}

func (t tx) TouchServiceAccount(ctx context.Context, id string, at time.Time) (bool, error) {
	n, err := t.q.TouchServiceAccount(ctx, sqlitedb.TouchServiceAccountParams{ID: id, LastUsedAt: ms(at)})
	return n > 0, interpretError(ctx, err)
}
