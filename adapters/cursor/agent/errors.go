package agent

import (
	"context"
	"errors"

	"connectrpc.com/connect"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/transport"
	"keygate/app/run"
	"keygate/domain/access"
	"keygate/domain/modelcycle"
	"keygate/domain/secretscan"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/ports"
)

// Failure classes the run layer decides itself. A classed error keeps its
// cause's message; connectError reads the class.
var (
	// errInvalidRequest: the client's request cannot be served as sent.
	errInvalidRequest = errors.New("invalid run request")
	// errClientBlob: a blob the turn needs could not be read from the
	// client.
	errClientBlob = errors.New("client blob not available")
	// errUnavailable: a dependency of the turn failed (the model store).
	errUnavailable = errors.New("dependency unavailable")
	// errRunCancelled: the run was cancelled (the user, a newer turn, a
	// shutdown).
	errRunCancelled = errors.New("run cancelled")
)

type classed struct{ class, err error }

func (e *classed) Error() string   { return e.err.Error() }
func (e *classed) Unwrap() []error { return []error{e.class, e.err} }

// classify marks err with class, keeping its message.
func classify(class, err error) error { return &classed{class: class, err: err} }

// connectError is the one place a turn's failure becomes the Connect error
// the client sees. The first matching row wins:
//
//	a failed run (*run.Failure)              FailureError: by category, with ErrorDetails
//	a *connect.Error                         itself
//	context.Canceled, a cancelled run,
//	  the client's stream lost               Canceled
//	context.DeadlineExceeded                 DeadlineExceeded
//	access.ErrDenied                         NotFound, saying only "not found"
//	ports.ErrNotFound                        NotFound
//	errInvalidRequest                        InvalidArgument
//	errClientBlob                            FailedPrecondition
//	errUnavailable                           Unavailable
//	a limit: transport.ErrIDsExhausted,
//	  ports.ErrBlobTooLarge                  ResourceExhausted
//	anything else                            Internal
//
// Another user's resource is reported like a missing one, so that nothing
// tells the caller it exists.
func connectError(err error) *connect.Error {
	var ce *connect.Error
	var f *run.Failure
	switch {
	case errors.As(err, &f):
		return FailureError(f)
	case errors.As(err, &ce):
		return ce
	case errors.Is(err, context.Canceled), errors.Is(err, errRunCancelled), errors.Is(err, errStreamLost):
		return connect.NewError(connect.CodeCanceled, err)
	case errors.Is(err, context.DeadlineExceeded):
		return connect.NewError(connect.CodeDeadlineExceeded, err)
	case errors.Is(err, access.ErrDenied):
		return connect.NewError(connect.CodeNotFound, ports.ErrNotFound)
	case errors.Is(err, ports.ErrNotFound):
		return connect.NewError(connect.CodeNotFound, err)
	case errors.Is(err, errInvalidRequest):
		return connect.NewError(connect.CodeInvalidArgument, err)
	case errors.Is(err, errClientBlob):
		return connect.NewError(connect.CodeFailedPrecondition, err)
	case errors.Is(err, errUnavailable):
		return connect.NewError(connect.CodeUnavailable, err)
	case errors.Is(err, transport.ErrIDsExhausted), errors.Is(err, ports.ErrBlobTooLarge):
		return connect.NewError(connect.CodeResourceExhausted, err)
	}
	return connect.NewError(connect.CodeInternal, err)
}

// endTurn maps the turn's failure (nil: success) to what ServeRun returns
// and logs it once, at a level by its code. A failed run is not logged
// here: the engine logged it with its run id.
func endTurn(log *zap.Logger, err error) error {
	if err == nil {
		return nil
	}
	ce := connectError(err)
	var f *run.Failure
	if !errors.As(err, &f) {
		level := zapcore.InfoLevel
		switch ce.Code() {
		case connect.CodeInternal:
			level = zapcore.ErrorLevel
		case connect.CodeUnavailable, connect.CodeDeadlineExceeded:
			level = zapcore.WarnLevel
		}
		log.Log(level, "turn ended", zap.String("code", ce.Code().String()), zap.Error(err))
	}
	return ce
}

// FailureError ends a failed turn with the Connect code of its category
// and an aiserver.v1.ErrorDetails, which the client renders as its native
// error bubble (title, text, and a retry button when retrying can help)
// instead of a bare "internal error".
func FailureError(f *run.Failure) *connect.Error {
	code, kind, title := connect.CodeInternal, aiserverv1.ErrorDetails_ERROR_CUSTOM_MESSAGE, "Keygate Error"
	retryable, expected := f.Retryable, f.Category == run.CategoryLimit
	switch f.Category {
	case run.CategoryProvider:
		code, kind, title = connect.CodeUnavailable, aiserverv1.ErrorDetails_ERROR_PROVIDER_ERROR, "Provider Error"
		// A content filter's block is the provider's policy at work, not a
		// failure: said at once, and a retry would be blocked again.
		if modelcycle.IsContentFiltered(f) {
			title, retryable, expected = "Blocked by the Provider's Content Filter", false, true
		}
	case run.CategoryClient:
		code = connect.CodeInvalidArgument
		if errors.Is(f.Err, run.ErrNothingToResume) {
			code, title = connect.CodeFailedPrecondition, "Nothing to Resume"
		}
	case run.CategoryLimit:
		code, title, retryable = connect.CodeResourceExhausted, "Keygate Limit Reached", false
		var blocked *secretscan.BlockedError
		if errors.As(f.Err, &blocked) {
			code, title = connect.CodePermissionDenied, "Blocked by Keygate's Secret Guard"
		}
	}
	err := connect.NewError(code, errors.New(f.Message))
	detail, derr := connect.NewErrorDetail(&aiserverv1.ErrorDetails{
		Error: kind,
		Details: &aiserverv1.CustomErrorDetails{
			Title: title, Detail: f.Message,
			IsRetryable:              proto.Bool(retryable),
			ShowRequestId:            proto.Bool(true),
			ShouldShowImmediateError: proto.Bool(expected),
		},
		IsExpected: proto.Bool(expected),
	})
	if derr == nil {
		err.AddDetail(detail)
	}
	return err
}
