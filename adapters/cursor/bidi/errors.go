package bidi

import (
	"context"
	"errors"
	"fmt"
	"io"

	"connectrpc.com/connect"

	"keygate/adapters/cursor/frame"
	"keygate/adapters/cursor/transport"
)

// ErrNotAgentMessage means a BidiAppend whose data is not the hex of an
// AgentClientMessage with its oneof set, and no ForeignAppends handler.
var ErrNotAgentMessage = errors.New("bidi append carries no agent message")

// ErrParentHeaders means only one of x-parent-request-id and
// x-parent-agent-tool-call-id was sent.
var ErrParentHeaders = errors.New("x-parent-request-id and x-parent-agent-tool-call-id must be sent together")

// ErrNeedsHTTP2 means AgentService/Run was called over HTTP/1.
var ErrNeedsHTTP2 = errors.New("AgentService/Run needs HTTP/2")

// BadRequestBodyError reports a stream request body that does not decode.
type BadRequestBodyError struct{ Err error }

func (e BadRequestBodyError) Error() string { return "decode request body: " + e.Err.Error() }
func (e BadRequestBodyError) Unwrap() error { return e.Err }

// connectError maps transport and context errors to Connect codes.
func connectError(err error) *connect.Error {
	var ce *connect.Error
	var tooMany *transport.TooManyPendingError
	var overBudget *transport.OverBudgetError
	var badBody BadRequestBodyError
	var tooLarge *frame.TooLargeError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, frame.ErrTruncated):
		return connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("run stream ended before a message: %w", err))
	case errors.As(err, &tooLarge):
		return connect.NewError(connect.CodeResourceExhausted, err)
	case errors.As(err, &badBody):
		return connect.NewError(connect.CodeInvalidArgument, err)
	case errors.As(err, &ce):
		return ce
	case errors.Is(err, transport.ErrNoModel),
		errors.Is(err, transport.ErrRouteTimeout),
		errors.Is(err, transport.ErrEmptyRequestID),
		errors.Is(err, ErrNotAgentMessage),
		errors.Is(err, ErrParentHeaders):
		return connect.NewError(connect.CodeInvalidArgument, err)
	case errors.As(err, &tooMany), errors.As(err, &overBudget):
		return connect.NewError(connect.CodeResourceExhausted, err)
	case errors.Is(err, ErrNeedsHTTP2):
		return connect.NewError(connect.CodeFailedPrecondition, err)
	case errors.Is(err, transport.ErrRegistryClosed), errors.Is(err, transport.ErrDraining):
		return connect.NewError(connect.CodeUnavailable, err)
	case errors.Is(err, context.Canceled):
		return connect.NewError(connect.CodeCanceled, err)
	case errors.Is(err, context.DeadlineExceeded):
		return connect.NewError(connect.CodeDeadlineExceeded, err)
	}
	return connect.NewError(connect.CodeInternal, err)
}
