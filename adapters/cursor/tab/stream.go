package tab

import (
	"context"
	"errors"
	"fmt"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	"keygate/domain/budget"
	"keygate/domain/tab"
	"keygate/domain/team"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
)

// service holds the Tab handlers.
type service struct {
	p   Predictor
	log *zap.Logger
}

// StreamCpp answers one suggestion request: model_info first, then per
// edit begin_edit, range_to_replace, the text pieces and done_edit, then
// the jump if any, and done_stream last (docs/cursor-protocol.md, "Cursor
// Tab"). The Predictor runs on the request's context, which ends when the
// client aborts (it closes the connection as soon as the user types
// again), so the model call stops at once.
func (s *service) StreamCpp(ctx context.Context, req *connect.Request[aiserverv1.StreamCppRequest], stream *connect.ServerStream[aiserverv1.StreamCppResponse]) error {
	model := modelOf(ctx)
	if model == "" {
		// Tab is off and there is no Cursor to relay to: no suggestion.
		return stream.Send(&aiserverv1.StreamCppResponse{DoneStream: proto.Bool(true)})
	}
	in := Input(req.Msg, req.Header().Get("X-Request-Id"))
	if in.RequestID == "" {
		in.RequestID = uuid.NewString()
	}
	log := s.log.With(zap.String("request_id", in.RequestID), zap.String("model", model))
	if err := stream.Send(&aiserverv1.StreamCppResponse{ModelInfo: &aiserverv1.StreamCppResponse_ModelInfo{
		IsFusedCursorPredictionModel: true, IsMultidiffModel: true,
	}}); err != nil {
		return err
	}
	err := s.p.Predict(ctx, in, func(ev tab.Event) error {
		for _, m := range Messages(ev) {
			if err := stream.Send(m); err != nil {
				return fmt.Errorf("send suggestion: %w", err)
			}
		}
		return nil
	})
	var exceeded *budget.ExceededError
	switch {
	case ctx.Err() != nil:
		// The client went away: nobody reads what would follow.
		log.Debug("tab stream aborted by the client", zap.Error(err))
		return nil
	case errors.As(err, &exceeded):
		// The one failure the user must hear about: the message says which
		// limit and when it resets.
		return connect.NewError(connect.CodeResourceExhausted, exceeded)
	case errors.Is(err, team.ErrNotAllowed):
		// The Tab model is not on the user's team's list: every pause
		// would fail the same way, so the user must hear why.
		return connect.NewError(connect.CodePermissionDenied, err)
	case err != nil:
		// A failed suggestion is no suggestion: the client shows nothing and
		// asks again on the next pause, where an error would only log noise
		// in the editor.
		log.Warn("tab suggestion failed", zap.Error(err))
	}
	return stream.Send(&aiserverv1.StreamCppResponse{DoneStream: proto.Bool(true)})
}

// StreamNextCursorPrediction ends at once: Keygate's jumps ride on
// StreamCpp (CppConfig says the model is fused), so the client has no
// reason to ask separately.
func (s *service) StreamNextCursorPrediction(context.Context, *connect.Request[aiserverv1.StreamNextCursorPredictionRequest], *connect.ServerStream[aiserverv1.StreamNextCursorPredictionResponse]) error {
	return nil
}

// Messages are the StreamCppResponse messages of one event. The range is
// sent as it is: an edit's text replaces the lines of its range exactly
// (domain/tab.Range), so there is never a leading line break for the
// client to remove and should_remove_leading_eol stays unset.
func Messages(ev tab.Event) []*aiserverv1.StreamCppResponse {
	switch ev.Kind {
	case tab.EventBeginEdit:
		return []*aiserverv1.StreamCppResponse{
			{BeginEdit: proto.Bool(true)},
			{RangeToReplace: &aiserverv1.LineRange{
				StartLineNumber:        int32(ev.Range.StartLine), //nolint:gosec // a line number of a bounded file
				EndLineNumberInclusive: int32(ev.Range.EndLine),   //nolint:gosec // a line number of a bounded file
			}},
		}
	case tab.EventText:
		if ev.Text == "" {
			return nil
		}
		return []*aiserverv1.StreamCppResponse{{Text: ev.Text}}
	case tab.EventDoneEdit:
		return []*aiserverv1.StreamCppResponse{{DoneEdit: proto.Bool(true)}}
	case tab.EventJump:
		if ev.Jump == nil {
			return nil
		}
		return []*aiserverv1.StreamCppResponse{{CursorPredictionTarget: &aiserverv1.StreamCppResponse_CursorPredictionTarget{
			RelativePath:         ev.Jump.Path,
			LineNumberOneIndexed: int32(ev.Jump.Line), //nolint:gosec // a line number of a bounded file
			ExpectedContent:      ev.Jump.Expected,
		}}}
	}
	return nil
}

// Input translates a StreamCppRequest to the use case's request; requestID
// is the client's x-request-id ("" when it sent none).
func Input(req *aiserverv1.StreamCppRequest, requestID string) tab.Input {
	cur := req.GetCurrentFile()
	in := tab.Input{
		RequestID:  requestID,
		Path:       cur.GetRelativeWorkspacePath(),
		Contents:   cur.GetContents(),
		Line:       int(cur.GetCursorPosition().GetLine()),
		Column:     int(cur.GetCursorPosition().GetColumn()),
		LanguageID: cur.GetLanguageId(),
		LineEnding: cur.GetLineEnding(),
		Workspace:  req.GetWorkspaceId(),
	}
	// The older single-file history first, then the per-file histories;
	// both are oldest first, as the client keeps them.
	for _, d := range req.GetDiffHistory() {
		in.Recent = append(in.Recent, tab.FileDiff{Path: in.Path, Diff: d})
	}
	for _, h := range req.GetFileDiffHistories() {
		for _, d := range h.GetDiffHistory() {
			in.Recent = append(in.Recent, tab.FileDiff{Path: h.GetFileName(), Diff: d})
		}
	}
	for _, f := range req.GetAdditionalFiles() {
		of := tab.OpenFile{Path: f.GetRelativeWorkspacePath()}
		starts := f.GetStartLineNumberOneIndexed()
		for i, text := range f.GetVisibleRangeContent() {
			start := 1
			if i < len(starts) {
				start = int(starts[i])
			}
			of.Snippets = append(of.Snippets, tab.Snippet{StartLine: start, Text: text})
		}
		in.Open = append(in.Open, of)
	}
	in.Lints = lints(req)
	return in
}

// lints are the current file's diagnostics: the linter errors the client
// sent for it, else the file's own diagnostics. Their ranges are taken as
// 1-indexed, as the editor's markers are (unlike the cursor position).
func lints(req *aiserverv1.StreamCppRequest) []tab.Lint {
	var out []tab.Lint
	le := req.GetLinterErrors()
	if le != nil && (le.GetRelativeWorkspacePath() == "" || le.GetRelativeWorkspacePath() == req.GetCurrentFile().GetRelativeWorkspacePath()) {
		for _, e := range le.GetErrors() {
			out = append(out, tab.Lint{Line: int(e.GetRange().GetStartPosition().GetLine()), Severity: severity(e.GetSeverity()), Message: e.GetMessage()})
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, d := range req.GetCurrentFile().GetDiagnostics() {
		out = append(out, tab.Lint{Line: int(d.GetRange().GetStartPosition().GetLine()), Severity: severity(d.GetSeverity()), Message: d.GetMessage()})
	}
	return out
}

func severity(s aiserverv1.Diagnostic_DiagnosticSeverity) string {
	switch s {
	case aiserverv1.Diagnostic_DIAGNOSTIC_SEVERITY_ERROR:
		return "error"
	case aiserverv1.Diagnostic_DIAGNOSTIC_SEVERITY_WARNING:
		return "warning"
	case aiserverv1.Diagnostic_DIAGNOSTIC_SEVERITY_INFORMATION:
		return "information"
	case aiserverv1.Diagnostic_DIAGNOSTIC_SEVERITY_HINT:
		return "hint"
	}
	return ""
}
