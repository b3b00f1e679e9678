package transport_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/transport"
)

// drain is a RunHandler that reads its inbox until cancelled.
type drain struct{}

func (drain) ServeRun(ctx context.Context, turn *transport.Turn) error {
	for {
		if _, err := turn.Inbox.Next(ctx); err != nil {
			return context.Cause(ctx)
		}
	}
}

// BenchmarkAppend measures queuing in-order appends on one request id
// (reported, not asserted).
func BenchmarkAppend(b *testing.B) {
	reg := transport.NewRegistry(drain{}, nil, transport.Config{OrphanGrace: time.Hour}, zap.NewNop())
	b.Cleanup(func() { _ = reg.Close(context.Background()) })
	ctx := context.Background()
	msg := cursortest.RunRequest("conv", "m", "hi")
	raw, _ := proto.Marshal(msg)
	id := fmt.Sprintf("bench-%d", b.N)
	if _, err := reg.Append(ctx, transport.Append{RequestID: id, Message: msg, Raw: raw}); err != nil {
		b.Fatal(err)
	}
	hb := cursortest.Heartbeat()
	b.ReportAllocs()
	seq := int64(1)
	for b.Loop() {
		if _, err := reg.Append(ctx, transport.Append{RequestID: id, Seqno: seq, Message: hb}); err != nil {
			b.Fatal(err)
		}
		seq++
	}
}
