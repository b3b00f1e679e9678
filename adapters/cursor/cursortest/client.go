package cursortest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	agentv1 "keygate/gen/cursor/agent/v1"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// Client is one simulated Cursor client bound to one request id.
type Client struct {
	baseURL   string
	http      *http.Client
	bidi      aiserverv1connect.BidiServiceClient
	RequestID string
	// Header is sent with every request (e.g. subagent parent headers).
	Header http.Header
	// RejectSets makes the client answer every KV SET with an error (a
	// full or broken client store).
	RejectSets bool
	// AppendAttempts, when above 1, resends a BidiAppend that failed
	// before the server answered (a connection reset by a replica that
	// died, a balancer that cut it) up to that many times in all, as a
	// client on a flaky network does; the seqno makes a resend that did
	// arrive harmless. Errors the server answered are never resent.
	AppendAttempts int
	// OnMessage, when set, sees every server message that is not a KV
	// request, in stream order, with a sender for replies on the same
	// uplink. Exec execution against a workspace plugs in here.
	OnMessage func(ctx context.Context, msg *agentv1.AgentServerMessage, reply Sender) error

	mu   sync.Mutex
	next int64
	// kv is the client's KV store and latest checkpoint, shared by the
	// clients of one window (WithRequestID).
	kv *store
	// resent counts the appends AppendAttempts sent again, shared by the
	// clients of one window.
	resent *atomic.Int64
	// abandoned counts the replies whose seqno was taken and whose
	// append was given up because their stream was closed while it was
	// being sent, shared by the clients of one window.
	abandoned *atomic.Int64
}

// store is what a Cursor window keeps across request ids: blobs by hex id
// and the latest checkpoint.
type store struct {
	mu     sync.Mutex
	blobs  map[string][]byte
	latest *agentv1.ConversationStateStructure
}

// NewClient returns a client for the server at baseURL using requestID.
func NewClient(baseURL string, hc *http.Client, requestID string) *Client {
	return &Client{
		baseURL:   baseURL,
		http:      hc,
		bidi:      aiserverv1connect.NewBidiServiceClient(hc, baseURL),
		RequestID: requestID,
		Header:    http.Header{},
		kv:        &store{blobs: map[string][]byte{}},
		resent:    &atomic.Int64{},
		abandoned: &atomic.Int64{},
	}
}

// Send appends msg with the next automatic seqno (0, 1, 2, ...).
func (c *Client) Send(ctx context.Context, msg *agentv1.AgentClientMessage) error {
	c.mu.Lock()
	seq := c.next
	c.next++
	c.mu.Unlock()
	return c.SendAt(ctx, seq, msg)
}

// SendAt appends msg with an explicit seqno: for out-of-order, duplicate
// and overtaking appends. It does not move the automatic counter.
func (c *Client) SendAt(ctx context.Context, seqno int64, msg *agentv1.AgentClientMessage) error {
	b, err := clientBytes(msg)
	if err != nil {
		return fmt.Errorf("marshal client message: %w", err)
	}
	return c.SendRaw(ctx, &aiserverv1.BidiAppendRequest{
		Data:        hex.EncodeToString(b),
		RequestId:   &aiserverv1.BidiRequestId{RequestId: c.RequestID},
		AppendSeqno: seqno,
	})
}

// SendRaw sends a hand-made BidiAppendRequest (for foreign or broken
// payloads). The error is the server's Connect error, if any.
func (c *Client) SendRaw(ctx context.Context, req *aiserverv1.BidiAppendRequest) error {
	r := connect.NewRequest(req)
	for k, vs := range c.Header {
		r.Header()[k] = vs
	}
	c.mu.Lock()
	bidi, attempts := c.bidi, c.AppendAttempts
	c.mu.Unlock()
	for i := 1; ; i++ {
		_, err := bidi.BidiAppend(ctx, r)
		if err == nil || i >= attempts || ctx.Err() != nil || !unanswered(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(i) * 50 * time.Millisecond):
		}
		c.resent.Add(1)
	}
}

// Resent is how many appends the clients of this window sent again after
// a network failure (see AppendAttempts).
func (c *Client) Resent() int64 { return c.resent.Load() }

// Abandoned is how many replies the clients of this window numbered and
// then gave up because their stream was closed while the append was being
// sent: the server may never see those seqnos.
func (c *Client) Abandoned() int64 { return c.abandoned.Load() }

// unanswered reports whether err came from the network rather than from
// the server: Connect reports a failed round trip as unavailable or
// unknown without an HTTP status of its own, and a connection reset (a
// replica killed, a balancer dropping the connection) as canceled, also
// without one; the caller has checked that its own context is live.
func unanswered(err error) bool {
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return true
	}
	switch ce.Code() {
	case connect.CodeUnavailable, connect.CodeUnknown, connect.CodeCanceled:
		return len(ce.Meta()) == 0
	}
	return false
}

// Lose takes the next n automatic seqnos without sending anything: the
// appends a client numbered and lost with a connection that was cut while
// they were on their way.
func (c *Client) Lose(n int64) {
	c.mu.Lock()
	c.next += n
	c.mu.Unlock()
}

// ResetSeqno makes the next automatic seqno 0 again, as the client does when
// it reuses a request id for a new turn.
func (c *Client) ResetSeqno() {
	c.mu.Lock()
	c.next = 0
	c.mu.Unlock()
}

// Blob returns a blob the server stored with KV SET.
func (c *Client) Blob(id []byte) ([]byte, bool) {
	c.kv.mu.Lock()
	defer c.kv.mu.Unlock()
	b, ok := c.kv.blobs[hex.EncodeToString(id)]
	return b, ok
}

// PutBlob stores a blob as if an earlier turn had stored it, and returns its
// id (SHA-256 of the data).
func (c *Client) PutBlob(data []byte) []byte {
	id := sha256.Sum256(data)
	c.kv.mu.Lock()
	c.kv.blobs[hex.EncodeToString(id[:])] = data
	c.kv.mu.Unlock()
	return id[:]
}

// Sender sends one client message on a stream's uplink (BidiAppend for
// RunSSE, the request body for HTTP/2 Run).
type Sender func(context.Context, *agentv1.AgentClientMessage) error

// react answers a server message: KV requests like the client's store,
// everything else through OnMessage.
func (c *Client) react(ctx context.Context, msg *agentv1.AgentServerMessage, reply Sender) error {
	if cp := msg.GetConversationCheckpointUpdate(); cp != nil {
		c.kv.mu.Lock()
		c.kv.latest = cp
		c.kv.mu.Unlock()
	}
	if kv := msg.GetKvServerMessage(); kv != nil {
		if err := c.answerKV(ctx, kv, reply); err != nil {
			return fmt.Errorf("answer kv %d: %w", kv.GetId(), err)
		}
		return nil
	}
	if c.OnMessage != nil {
		return c.OnMessage(ctx, msg, reply)
	}
	return nil
}

// answerKV is the client's side of the KV protocol: SET stores and ACKs,
// GET returns the blob or an error.
func (c *Client) answerKV(ctx context.Context, kv *agentv1.KvServerMessage, send Sender) error {
	reply := &agentv1.KvClientMessage{Id: kv.GetId()}
	switch {
	case kv.GetSetBlobArgs() != nil && c.RejectSets:
		reply.Message = &agentv1.KvClientMessage_SetBlobResult{SetBlobResult: &agentv1.SetBlobResult{Error: &agentv1.Error{Message: "store full"}}}
	case kv.GetSetBlobArgs() != nil:
		args := kv.GetSetBlobArgs()
		c.kv.mu.Lock()
		c.kv.blobs[hex.EncodeToString(args.GetBlobId())] = args.GetBlobData()
		c.kv.mu.Unlock()
		reply.Message = &agentv1.KvClientMessage_SetBlobResult{SetBlobResult: &agentv1.SetBlobResult{}}
	case kv.GetGetBlobArgs() != nil:
		res := &agentv1.GetBlobResult{}
		if data, ok := c.Blob(kv.GetGetBlobArgs().GetBlobId()); ok {
			res.BlobData = data
		} else {
			res.Error = &agentv1.Error{Message: "blob not found"}
		}
		reply.Message = &agentv1.KvClientMessage_GetBlobResult{GetBlobResult: res}
	default:
		return nil
	}
	return send(ctx, &agentv1.AgentClientMessage{Message: &agentv1.AgentClientMessage_KvClientMessage{KvClientMessage: reply}})
}

// Checkpoint returns the latest checkpoint the server published (nil before
// the first), the state the client sends back with its next run request.
func (c *Client) Checkpoint() *agentv1.ConversationStateStructure {
	c.kv.mu.Lock()
	defer c.kv.mu.Unlock()
	return c.kv.latest
}

// Rebind points the client at another server (a restarted one), keeping its
// KV store and latest checkpoint, as a client does across a server restart.
func (c *Client) Rebind(baseURL string, hc *http.Client) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.baseURL, c.http = baseURL, hc
	c.bidi = aiserverv1connect.NewBidiServiceClient(hc, baseURL)
}

// AppendTo sends the client's BidiAppends to another server while its
// RunSSE stays where it is: a second replica behind a round-robin load
// balancer. Rebind undoes it.
func (c *Client) AppendTo(baseURL string, hc *http.Client) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bidi = aiserverv1connect.NewBidiServiceClient(hc, baseURL)
}

// WithRequestID returns a client for another request id sharing this
// client's KV store, latest checkpoint and hooks: the same Cursor window
// starting its next turn.
func (c *Client) WithRequestID(requestID string) *Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := &Client{baseURL: c.baseURL, http: c.http, bidi: c.bidi, RequestID: requestID, Header: c.Header.Clone(),
		OnMessage: c.OnMessage, AppendAttempts: c.AppendAttempts, kv: c.kv, resent: c.resent, abandoned: c.abandoned}
	return n
}

// clientBytes encodes msg as the client does: the client's protobuf
// library writes a map's entries in the order they were added, so the same
// request context (MCP tool schemas are maps) is the same bytes at every
// turn; Go's proto.Marshal would shuffle them on each call.
func clientBytes(msg *agentv1.AgentClientMessage) ([]byte, error) {
	return proto.MarshalOptions{Deterministic: true}.Marshal(msg)
}
