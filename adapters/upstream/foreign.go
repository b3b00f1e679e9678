package upstream

import (
	"context"
	"fmt"

	"connectrpc.com/connect"

	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// ForeignAppends hands BidiAppends that are not agent messages (Cursor's
// speech-to-text reuses the RPC, pitfall P7) to Cursor unchanged, on the host
// the client addressed. It has the shape of the Cursor adapter's
// bidi.ForeignAppends.
type ForeignAppends struct {
	client aiserverv1connect.BidiServiceClient
}

// NewForeignAppends relays foreign appends through f.
func NewForeignAppends(f *Forwarder) ForeignAppends {
	return ForeignAppends{client: aiserverv1connect.NewBidiServiceClient(f.Client(), DefaultURL)}
}

// ForeignAppend sends req to Cursor with the original URL the proxy kept.
func (a ForeignAppends) ForeignAppend(ctx context.Context, req *connect.Request[aiserverv1.BidiAppendRequest]) (*connect.Response[aiserverv1.BidiAppendResponse], error) {
	out := connect.NewRequest(req.Msg)
	out.Header().Set(HeaderUpstreamURL, req.Header().Get(HeaderUpstreamURL))
	resp, err := a.client.BidiAppend(ctx, out)
	if err != nil {
		return nil, fmt.Errorf("relay foreign append to cursor: %w", err)
	}
	return resp, nil
}
