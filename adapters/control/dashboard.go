package control

import (
	"context"

	"connectrpc.com/connect"
	"go.uber.org/zap"
	"google.golang.org/protobuf/types/known/timestamppb"

	appcontrol "keygate/app/control"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// dashboardService implements controlv1connect.DashboardServiceHandler.
type dashboardService struct {
	// cloud is the Cursor cloud ledger; nil answers the policy allow and
	// no rows.
	cloud     *appcontrol.CursorCloud
	dashboard *appcontrol.Dashboard
	log       *zap.Logger
}

var _ controlv1connect.DashboardServiceHandler = (*dashboardService)(nil)

// Bucket values are the same numbers in the use case and in the API.
func (h *dashboardService) GetDashboard(ctx context.Context, req *connect.Request[controlv1.GetDashboardRequest]) (*connect.Response[controlv1.GetDashboardResponse], error) {
	q := appcontrol.DashboardQuery{Bucket: appcontrol.Bucket(req.Msg.GetBucketSize()), ModelID: req.Msg.GetModelId(), UserID: req.Msg.GetUserId()}
	if t := req.Msg.GetStartTime(); t != nil {
		q.Since = t.AsTime()
	}
	if t := req.Msg.GetEndTime(); t != nil {
		q.Until = t.AsTime()
	}
	v, err := h.dashboard.Get(ctx, q)
	if err != nil {
		return nil, toConnect(h.log, "GetDashboard", err)
	}
	resp := &controlv1.GetDashboardResponse{Totals: aggregateToProto(v.Totals), BucketSize: controlv1.BucketSize(v.Bucket)}
	for _, p := range v.Series {
		resp.Series = append(resp.Series, &controlv1.SeriesPoint{StartTime: timestamppb.New(p.Start), Aggregate: aggregateToProto(p.Aggregate)})
	}
	for _, t := range v.PerTarget {
		resp.PerTarget = append(resp.PerTarget, &controlv1.TargetAggregate{TargetModelId: t.Target, ProviderId: t.Provider,
			Aggregate: aggregateToProto(t.Aggregate)})
	}
	for _, u := range v.PerUser {
		resp.PerUser = append(resp.PerUser, &controlv1.UserAggregate{UserId: u.UserID, Aggregate: aggregateToProto(u.Aggregate)})
	}
	for _, m := range v.PerModel {
		resp.PerModel = append(resp.PerModel, &controlv1.ModelAggregate{ModelId: m.ModelID, Aggregate: aggregateToProto(m.Aggregate)})
	}
	if v.Tab.Totals.Requests > 0 {
		resp.Tab = tabToProto(v.Tab)
	}
	return connect.NewResponse(resp), nil
}

func tabToProto(v appcontrol.TabView) *controlv1.TabDashboard {
	out := &controlv1.TabDashboard{Totals: tabAggregateToProto(v.Totals)}
	for _, m := range v.PerModel {
		out.PerModel = append(out.PerModel, &controlv1.TabModelAggregate{ModelId: m.ModelID, Aggregate: tabAggregateToProto(m.TabAggregate)})
	}
	for _, u := range v.PerUser {
		out.PerUser = append(out.PerUser, &controlv1.TabUserAggregate{UserId: u.UserID, Aggregate: tabAggregateToProto(u.TabAggregate)})
	}
	return out
}

func tabAggregateToProto(a appcontrol.TabAggregate) *controlv1.TabAggregate {
	return &controlv1.TabAggregate{Requests: a.Requests, Failed: a.Failed, Calls: a.Calls, Accepted: a.Accepted,
		PartiallyAccepted: a.Partial, Rejected: a.Rejected, AcceptanceRate: a.AcceptanceRate(),
		P50TtftMs: float64(a.P50TTFT().Microseconds()) / 1000, InputTokens: a.Input, OutputTokens: a.Output,
		CostUsd: a.CostUSD, UnpricedCalls: a.UnpricedCalls}
}

func aggregateToProto(a appcontrol.Aggregate) *controlv1.Aggregate {
	return &controlv1.Aggregate{Calls: a.Calls, Completed: a.Completed, Failed: a.Failed, Cancelled: a.Cancelled,
		InputTokens: a.Input, CacheReadTokens: a.CacheRead, CacheWriteTokens: a.CacheWrite, OutputTokens: a.Output,
		CacheHitRate: a.CacheHitRate(), CostUsd: a.CostUSD, UnpricedCalls: a.UnpricedCalls,
		MeanTtftMs: float64(a.MeanTTFT().Microseconds()) / 1000}
}

// GetCursorCloud implements the Cursor cloud page.
func (h *dashboardService) GetCursorCloud(ctx context.Context, req *connect.Request[controlv1.GetCursorCloudRequest]) (*connect.Response[controlv1.GetCursorCloudResponse], error) {
	if h.cloud == nil {
		return connect.NewResponse(&controlv1.GetCursorCloudResponse{Policy: "allow"}), nil
	}
	v, err := h.cloud.Get(ctx, appcontrol.CursorCloudQuery{Days: int(req.Msg.GetDays()), UserID: req.Msg.GetUserId(), Limit: int(req.Msg.GetLimit())})
	if err != nil {
		return nil, toConnect(h.log, "GetCursorCloud", err)
	}
	resp := &controlv1.GetCursorCloudResponse{Policy: string(v.Policy), Meaning: v.Meaning,
		MetadataRoutes: int32(v.MetadataRoutes), CodeRoutes: int32(v.CodeRoutes), ServedRoutes: int32(v.ServedRoutes)} //nolint:gosec // about a thousand routes
	for _, r := range v.Rows {
		resp.Rows = append(resp.Rows, &controlv1.CursorCloudRow{Day: r.Day, UserId: r.UserID, Service: r.Route.Service,
			Method: r.Route.Method, Decision: string(r.Decision), Requests: r.Requests, BytesUp: r.Up, BytesDown: r.Down})
	}
	return connect.NewResponse(resp), nil
}
