package tab

import (
	"context"
	"fmt"

	"connectrpc.com/connect"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	"keygate/domain/tab"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
)

// Debounces told to the client. The client waits ClientDebounce after the
// last keystroke before it asks for a suggestion, and never sends two
// requests closer than GlobalDebounce. 50 ms is about the gap between two
// keystrokes of a fast typist, so a suggestion is asked once the user
// pauses, not on every key; 120 ms keeps the request rate of a user who
// types in bursts near eight a second at most, which a self-hosted or
// per-token-billed model can take, while the suggestion still arrives
// within the ~300 ms in which it feels instant (a model's first token
// usually comes 100-200 ms after the request).
const (
	ClientDebounceMillis = 50
	GlobalDebounceMillis = 120
)

// CppConfig tells the client whether Tab is on and where to ask: cpp_url
// and geo_cpp_backend_url name the origin this request came in on (the
// host the proxy intercepted), so every StreamCpp comes back through
// Keygate rather than to a regional backend of Cursor's.
func (s *service) CppConfig(ctx context.Context, _ *connect.Request[aiserverv1.CppConfigRequest]) (*connect.Response[aiserverv1.CppConfigResponse], error) {
	if modelOf(ctx) == "" {
		return connect.NewResponse(&aiserverv1.CppConfigResponse{IsOn: proto.Bool(false)}), nil
	}
	origin, _ := ctx.Value(originKey{}).(string)
	return connect.NewResponse(&aiserverv1.CppConfigResponse{
		IsOn:                         proto.Bool(true),
		IsGhostText:                  proto.Bool(true),
		ClientDebounceDurationMillis: ClientDebounceMillis,
		GlobalDebounceDurationMillis: GlobalDebounceMillis,
		CppUrl:                       origin,
		GeoCppBackendUrl:             origin,
		// Jumps ride on StreamCpp and a stream may carry several edits.
		IsFusedCursorPredictionModel: true,
		// The client-side filters that hide a suggestion not worth
		// showing: one that repeats the lines after it, undoes what the
		// user just typed, or was rejected recently. Lots of added text is
		// left out: a multi-line completion is what Tab is for.
		Heuristics: []aiserverv1.CppConfigResponse_Heuristic{
			aiserverv1.CppConfigResponse_HEURISTIC_DUPLICATING_LINE_AFTER_SUGGESTION,
			aiserverv1.CppConfigResponse_HEURISTIC_DUPLICATING_MULTIPLE_LINES_AFTER_SUGGESTION,
			aiserverv1.CppConfigResponse_HEURISTIC_REVERTING_USER_CHANGE,
			aiserverv1.CppConfigResponse_HEURISTIC_OUTPUT_EXTENDS_BEYOND_RANGE_AND_IS_REPEATED,
			aiserverv1.CppConfigResponse_HEURISTIC_SUGGESTING_RECENTLY_REJECTED_EDIT,
		},
		RecentlyRejectedEditThresholds: &aiserverv1.CppConfigResponse_RecentlyRejectedEditThresholds{
			HardRejectThreshold: 2, SoftRejectThreshold: 1,
		},
	}), nil
}

// CppEditHistoryStatus tells the client not to upload its edit history:
// Keygate reads the recent edits from each StreamCpp instead.
func (s *service) CppEditHistoryStatus(context.Context, *connect.Request[aiserverv1.CppEditHistoryStatusRequest]) (*connect.Response[aiserverv1.CppEditHistoryStatusResponse], error) {
	return connect.NewResponse(&aiserverv1.CppEditHistoryStatusResponse{On: false}), nil
}

// CppAppend accepts and drops an edit-history upload.
func (s *service) CppAppend(context.Context, *connect.Request[aiserverv1.CppAppendRequest]) (*connect.Response[aiserverv1.CppAppendResponse], error) {
	return connect.NewResponse(&aiserverv1.CppAppendResponse{Success: true}), nil
}

// CppEditHistoryAppend accepts and drops an edit-history upload.
func (s *service) CppEditHistoryAppend(context.Context, *connect.Request[aiserverv1.EditHistoryAppendChangesRequest]) (*connect.Response[aiserverv1.EditHistoryAppendChangesResponse], error) {
	return connect.NewResponse(&aiserverv1.EditHistoryAppendChangesResponse{Success: true}), nil
}

// RefreshTabContext answers that there is no extra context to prefetch:
// each StreamCpp carries what the prompt needs.
func (s *service) RefreshTabContext(context.Context, *connect.Request[aiserverv1.RefreshTabContextRequest]) (*connect.Response[aiserverv1.RefreshTabContextResponse], error) {
	return connect.NewResponse(&aiserverv1.RefreshTabContextResponse{}), nil
}

// GetCppEditClassification scores nothing, which the client takes as no
// opinion on the suggestion.
func (s *service) GetCppEditClassification(context.Context, *connect.Request[aiserverv1.GetCppEditClassificationRequest]) (*connect.Response[aiserverv1.GetCppEditClassificationResponse], error) {
	return connect.NewResponse(&aiserverv1.GetCppEditClassificationResponse{}), nil
}

// AvailableModels lists the Tab model (none when Tab is off).
func (s *service) AvailableModels(ctx context.Context, _ *connect.Request[aiserverv1.AvailableCppModelsRequest]) (*connect.Response[aiserverv1.AvailableCppModelsResponse], error) {
	resp := &aiserverv1.AvailableCppModelsResponse{}
	if m := modelOf(ctx); m != "" {
		resp.Models = []string{m}
		resp.DefaultModel = proto.String(m)
	}
	return connect.NewResponse(resp), nil
}

// RecordCppFate stores what the user did with a suggestion. A fate the
// store cannot take is logged and answered as recorded: the client cannot
// do better, and an error would only show up in its logs.
func (s *service) RecordCppFate(ctx context.Context, req *connect.Request[aiserverv1.RecordCppFateRequest]) (*connect.Response[aiserverv1.RecordCppFateResponse], error) {
	f, ok := Fate(req.Msg.GetFate())
	if !ok || req.Msg.GetRequestId() == "" || modelOf(ctx) == "" {
		return connect.NewResponse(&aiserverv1.RecordCppFateResponse{}), nil
	}
	if err := s.p.RecordFate(ctx, req.Msg.GetRequestId(), f); err != nil {
		s.log.Warn("tab fate not recorded", zap.String("request_id", req.Msg.GetRequestId()),
			zap.Error(fmt.Errorf("record %s: %w", f, err)))
	}
	return connect.NewResponse(&aiserverv1.RecordCppFateResponse{}), nil
}

// Fate translates the client's fate; false for CPP_FATE_UNSPECIFIED and
// values this build does not know.
func Fate(f aiserverv1.CppFate) (tab.Fate, bool) {
	switch f {
	case aiserverv1.CppFate_CPP_FATE_ACCEPT:
		return tab.FateAccepted, true
	case aiserverv1.CppFate_CPP_FATE_REJECT:
		return tab.FateRejected, true
	case aiserverv1.CppFate_CPP_FATE_PARTIAL_ACCEPT:
		return tab.FatePartiallyAccepted, true
	}
	return 0, false
}
