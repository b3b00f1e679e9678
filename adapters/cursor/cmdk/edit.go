package cmdk

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"connectrpc.com/connect"
	"github.com/google/uuid"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	"keygate/domain/budget"
	"keygate/domain/cmdk"
	"keygate/domain/gitmsg"
	"keygate/domain/secretscan"
	"keygate/domain/team"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
)

// editID names the one edit of a stream: the selection's replacement.
const editID = 1

// errOff answers a route whose feature has no model while there is no
// Cursor to relay it to.
var errOff = errors.New("this feature is not served: no model is configured for it")

// service holds the handlers.
type service struct {
	e   Editor
	log *zap.Logger
}

// StreamCmdK answers an inline edit (docs/cursor-protocol.md, "Inline
// edits (Cmd-K)"). A request that names its context items by hash only is
// answered with missing_context_items, and the client sends them again in
// full: Keygate keeps no cache of them. Otherwise, in edit mode, edit_start
// (the selection's range) goes out at once, then the replacement text as
// edit_stream pieces, whole lines as the model completes them, and
// edit_end; in chat mode the answer's text as chat pieces. The Editor runs
// on the request's context, which ends when the user dismisses the edit.
func (s *service) StreamCmdK(ctx context.Context, req *connect.Request[aiserverv1.StreamCmdKRequest], stream *connect.ServerStream[aiserverv1.StreamCmdKResponseContextWrapped]) error {
	if modelOf(ctx) == "" {
		return connect.NewError(connect.CodeUnavailable, errOff)
	}
	if missing := hashes(req.Msg.GetContextItems()); len(missing) > 0 {
		return stream.Send(&aiserverv1.StreamCmdKResponseContextWrapped{Response: &aiserverv1.StreamCmdKResponseContextWrapped_MissingContextItems{
			MissingContextItems: &aiserverv1.MissingContextItems{MissingContextItemHashes: missing}}})
	}
	in := EditInput(req.Msg, requestID(req.Header().Get("X-Request-Id")))
	send := func(r *aiserverv1.StreamCmdKResponse) error {
		return stream.Send(&aiserverv1.StreamCmdKResponseContextWrapped{Response: &aiserverv1.StreamCmdKResponseContextWrapped_RealResponse{RealResponse: r}})
	}
	var path *string
	if in.Path != "" {
		path = proto.String(in.Path)
	}
	start, end := int32(in.Start), int32(in.End()) //nolint:gosec // line numbers of a bounded request
	if !in.Chat {
		if err := send(&aiserverv1.StreamCmdKResponse{Response: &aiserverv1.StreamCmdKResponse_EditStart_{EditStart: &aiserverv1.StreamCmdKResponse_EditStart{
			StartLineNumber: start, EditId: editID, MaxEndLineNumberExclusive: proto.Int32(end), FilePath: path}}}); err != nil {
			return err
		}
	}
	err := s.e.Edit(ctx, in, func(text string) error {
		if in.Chat {
			return send(&aiserverv1.StreamCmdKResponse{Response: &aiserverv1.StreamCmdKResponse_Chat_{Chat: &aiserverv1.StreamCmdKResponse_Chat{Text: text}}})
		}
		return send(&aiserverv1.StreamCmdKResponse{Response: &aiserverv1.StreamCmdKResponse_EditStream_{EditStream: &aiserverv1.StreamCmdKResponse_EditStream{
			Text: text, EditId: editID, FilePath: path}}})
	})
	if err != nil {
		return s.failed(ctx, "inline edit", in.RequestID, err)
	}
	if in.Chat {
		return nil
	}
	return send(&aiserverv1.StreamCmdKResponse{Response: &aiserverv1.StreamCmdKResponse_EditEnd_{EditEnd: &aiserverv1.StreamCmdKResponse_EditEnd{
		EndLineNumberExclusive: end, EditId: editID, FilePath: path}}})
}

// StreamTerminalCmdK answers the terminal's Cmd-K with the command line,
// whole, as one terminal_command: a command is short, and one message
// reads the same whether the client appends pieces or replaces the
// command with each.
func (s *service) StreamTerminalCmdK(ctx context.Context, req *connect.Request[aiserverv1.StreamTerminalCmdKRequest], stream *connect.ServerStream[aiserverv1.StreamTerminalCmdKResponseContextWrapped]) error {
	if modelOf(ctx) == "" {
		return connect.NewError(connect.CodeUnavailable, errOff)
	}
	if missing := hashes(req.Msg.GetContextItems()); len(missing) > 0 {
		return stream.Send(&aiserverv1.StreamTerminalCmdKResponseContextWrapped{Response: &aiserverv1.StreamTerminalCmdKResponseContextWrapped_MissingContextItems{
			MissingContextItems: &aiserverv1.MissingContextItems{MissingContextItemHashes: missing}}})
	}
	in := TerminalInput(req.Msg, requestID(req.Header().Get("X-Request-Id")))
	cmd, err := s.e.Terminal(ctx, in)
	if err != nil {
		return s.failed(ctx, "terminal command", in.RequestID, err)
	}
	return stream.Send(&aiserverv1.StreamTerminalCmdKResponseContextWrapped{Response: &aiserverv1.StreamTerminalCmdKResponseContextWrapped_RealResponse{
		RealResponse: &aiserverv1.StreamTerminalCmdKResponse{Response: &aiserverv1.StreamTerminalCmdKResponse_TerminalCommand_{
			TerminalCommand: &aiserverv1.StreamTerminalCmdKResponse_TerminalCommand{PartialCommand: cmd}}}}})
}

// WriteGitCommitMessage writes the staged diff's commit message in the
// style of the recent messages the client sends along.
func (s *service) WriteGitCommitMessage(ctx context.Context, req *connect.Request[aiserverv1.WriteGitCommitMessageRequest]) (*connect.Response[aiserverv1.WriteGitCommitMessageResponse], error) {
	if modelOf(ctx) == "" {
		return nil, connect.NewError(connect.CodeUnavailable, errOff)
	}
	ec := req.Msg.GetExplicitContext()
	in := gitmsg.CommitInput{RequestID: requestID(req.Header().Get("X-Request-Id")), Diffs: req.Msg.GetDiffs(),
		Recent: req.Msg.GetPreviousCommitMessages(), Context: strings.Join(explicit(ec), "\n\n")}
	msg, err := s.e.CommitMessage(ctx, in)
	if err != nil {
		return nil, s.failed(ctx, "commit message", in.RequestID, err)
	}
	return connect.NewResponse(&aiserverv1.WriteGitCommitMessageResponse{CommitMessage: msg}), nil
}

// WriteGitBranchName names a branch for the diff and what the user said.
func (s *service) WriteGitBranchName(ctx context.Context, req *connect.Request[aiserverv1.WriteGitBranchNameRequest]) (*connect.Response[aiserverv1.WriteGitBranchNameResponse], error) {
	if modelOf(ctx) == "" {
		return nil, connect.NewError(connect.CodeUnavailable, errOff)
	}
	in := gitmsg.BranchInput{RequestID: requestID(req.Header().Get("X-Request-Id")), Diff: req.Msg.GetDiffs(), Context: req.Msg.GetContext()}
	name, err := s.e.BranchName(ctx, in)
	if err != nil {
		return nil, s.failed(ctx, "branch name", in.RequestID, err)
	}
	return connect.NewResponse(&aiserverv1.WriteGitBranchNameResponse{BranchName: name}), nil
}

// failed is the Connect error the client shows for a failed request: the
// user asked for it, so unlike a Tab suggestion it does not fail silently.
func (s *service) failed(ctx context.Context, what, requestID string, err error) error {
	var exceeded *budget.ExceededError
	var blocked *secretscan.BlockedError
	switch {
	case ctx.Err() != nil:
		// The user dismissed it: nobody reads the error.
		return connect.NewError(connect.CodeCanceled, ctx.Err())
	case errors.As(err, &exceeded):
		return connect.NewError(connect.CodeResourceExhausted, exceeded)
	case errors.Is(err, team.ErrNotAllowed):
		return connect.NewError(connect.CodePermissionDenied, err)
	case errors.As(err, &blocked):
		return connect.NewError(connect.CodePermissionDenied, blocked)
	case errors.Is(err, cmdk.ErrNoInstruction), errors.Is(err, cmdk.ErrSelectionTooLarge), errors.Is(err, gitmsg.ErrNoDiff):
		return connect.NewError(connect.CodeInvalidArgument, err)
	}
	s.log.Warn(what+" failed", zap.String("request_id", requestID), zap.Error(err))
	return connect.NewError(connect.CodeUnavailable, fmt.Errorf("%s failed: %w", what, err))
}

// requestID is the client's x-request-id, or a new one.
func requestID(h string) string {
	if h = strings.TrimSpace(h); h != "" && len(h) <= 128 {
		return h
	}
	return uuid.NewString()
}

// hashes are the context items the client named by hash only.
func hashes(items []*aiserverv1.PotentiallyCachedContextItem) []string {
	var out []string
	for _, it := range items {
		if h := it.GetContextItemHash(); h != "" && it.GetContextItem() == nil {
			out = append(out, h)
		}
	}
	return out
}
