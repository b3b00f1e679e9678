package company

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"keygate/ports"
)

// SealRelay wraps an append relay so that every payload is sealed with box
// while it waits in the database. A forwarded BidiAppend carries the
// client's headers, Cursor's bearer token among them, and the prompt
// itself; a copy of the database must not yield either. Every replica
// shares the secret key, so the replica that takes a payload can open it.
func SealRelay(next ports.AppendRelay, box ports.SecretBox, logger *zap.Logger) ports.AppendRelay {
	return sealedRelay{next: next, box: box, log: logger.Named("relay")}
}

type sealedRelay struct {
	next ports.AppendRelay
	box  ports.SecretBox
	log  *zap.Logger
}

func (r sealedRelay) Forward(ctx context.Context, owner, key string, payload []byte) error {
	sealed, err := r.box.Seal(payload)
	if err != nil {
		return fmt.Errorf("seal relayed append: %w", err)
	}
	return r.next.Forward(ctx, owner, key, sealed)
}

// Claim delivers opened payloads. One that does not open (sealed under a
// key this replica does not have) is dropped with an error in the log: it
// cannot be delivered, and blocking the key on it would stall the turn.
func (r sealedRelay) Claim(ctx context.Context, key string, deliver func([]byte)) (func(), error) {
	return r.next.Claim(ctx, key, func(sealed []byte) {
		payload, err := r.box.Open(sealed)
		if err != nil {
			r.log.Error("relayed append dropped: it does not open with this replica's secret key", zap.Error(err))
			return
		}
		deliver(payload)
	})
}
