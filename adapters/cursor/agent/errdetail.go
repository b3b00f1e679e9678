package agent

import (
	"errors"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"keygate/app/run"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
)

// FailureError ends a failed turn with the Connect code of its category
// and an aiserver.v1.ErrorDetails, which the client renders as its native
// error bubble (title, text, and a retry button when retrying can help)
// instead of a bare "internal error".
func FailureError(f *run.Failure) error {
	code, kind, title := connect.CodeInternal, aiserverv1.ErrorDetails_ERROR_CUSTOM_MESSAGE, "Keygate Error"
	retryable := f.Retryable
	switch f.Category {
	case run.CategoryProvider:
		code, kind, title = connect.CodeUnavailable, aiserverv1.ErrorDetails_ERROR_PROVIDER_ERROR, "Provider Error"
	case run.CategoryClient:
		code = connect.CodeInvalidArgument
	case run.CategoryLimit:
		code, title, retryable = connect.CodeResourceExhausted, "Keygate Limit Reached", false
	}
	err := connect.NewError(code, errors.New(f.Message))
	detail, derr := connect.NewErrorDetail(&aiserverv1.ErrorDetails{
		Error: kind,
		Details: &aiserverv1.CustomErrorDetails{
			Title: title, Detail: f.Message,
			IsRetryable:              proto.Bool(retryable),
			ShowRequestId:            proto.Bool(true),
			ShouldShowImmediateError: proto.Bool(f.Category == run.CategoryLimit),
		},
		IsExpected: proto.Bool(f.Category == run.CategoryLimit),
	})
	if derr == nil {
		err.AddDetail(detail)
	}
	return err
}
