package control

import (
	"context"
	"errors"

	"connectrpc.com/connect"
	"go.uber.org/zap"

	appcontrol "keygate/app/control"
	"keygate/domain/access"
	"keygate/domain/llm"
	"keygate/ports"
)

// errAdminOnly answers a member who called an administrator's procedure.
var errAdminOnly = errors.New("only an administrator may do this; ask one of your Keygate administrators")

// errReadOnly answers a read-only service account that called a
// procedure beyond reading configuration and usage.
var errReadOnly = errors.New("this service account is read-only: it may read configuration and usage, and change nothing")

// errBadFeature answers SetFeatureModel for a feature this server does
// not serve.
var errBadFeature = errors.New("unknown feature: use tab, cmdk or commit")

// errNoTab answers SetTabModel on a server built without Tab.
var errNoTab = errors.New("this Keygate serves no Cursor Tab")

// toConnect maps a use-case error to a Connect error whose message says
// what to do. Unexpected errors are logged here (the only place that
// handles them) and reach the client without internals.
func toConnect(log *zap.Logger, op string, err error) error {
	var inv *appcontrol.InvalidError
	var perr *llm.ProviderError
	var bound *appcontrol.KeyOriginError
	var noKey *appcontrol.NoKeyError
	switch {
	case errors.As(err, &inv):
		return connect.NewError(connect.CodeInvalidArgument, inv)
	case errors.As(err, &bound):
		return connect.NewError(connect.CodeFailedPrecondition, bound)
	case errors.As(err, &noKey):
		return connect.NewError(connect.CodeFailedPrecondition, noKey)
	case errors.Is(err, access.ErrDenied):
		return connect.NewError(connect.CodePermissionDenied, errors.New("access denied: sign in again"))
	case errors.Is(err, ports.ErrNotFound):
		return connect.NewError(connect.CodeNotFound, errors.New("not found: it may have been deleted; reload the page"))
	case errors.Is(err, context.Canceled):
		return connect.NewError(connect.CodeCanceled, err)
	case errors.Is(err, context.DeadlineExceeded):
		return connect.NewError(connect.CodeDeadlineExceeded, err)
	case errors.As(err, &perr) && errors.Is(err, ports.ErrDestinationRefused):
		return connect.NewError(connect.CodeFailedPrecondition, errors.New(perr.Message))
	case errors.As(err, &perr):
		return connect.NewError(connect.CodeUnavailable, errors.New(providerAdvice(perr)))
	case errors.Is(err, ports.ErrUnsealable):
		return connect.NewError(connect.CodeFailedPrecondition,
			errors.New("the stored API key cannot be decrypted (the data directory's secret.key changed); enter the key again"))
	}
	log.Error("control request failed", zap.String("op", op), zap.Error(err))
	return connect.NewError(connect.CodeInternal, errors.New("internal error; the Keygate log has the details"))
}

// providerAdvice says what to check, with the provider's own words only as
// a short, sanitised reason (never its body verbatim).
func providerAdvice(perr *llm.ProviderError) string {
	switch perr.Class {
	case llm.ErrorAuthorization:
		return "the provider rejected the API key; check the key (" + perr.Brief() + ")"
	case llm.ErrorBadRequest:
		return "the provider rejected the request; check the base URL and protocol (" + perr.Brief() + ")"
	default:
		return "the provider could not be reached or failed; check the base URL and try again (" + perr.Brief() + ")"
	}
}
