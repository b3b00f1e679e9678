package control

import (
	"context"
	"errors"

	"connectrpc.com/connect"
	"go.uber.org/zap"
	"google.golang.org/protobuf/types/known/timestamppb"

	"keygate/app/teams"
	"keygate/domain/access"
	"keygate/domain/team"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// teamService implements controlv1connect.TeamServiceHandler.
type teamService struct {
	teams *teams.Service
	log   *zap.Logger
}

var _ controlv1connect.TeamServiceHandler = (*teamService)(nil)

func teamOf(t team.Team) *controlv1.Team {
	out := &controlv1.Team{Name: t.Name, Restricted: t.Restricted, Models: t.Models}
	if !t.CreatedAt.IsZero() {
		out.CreateTime, out.UpdateTime = timestamppb.New(t.CreatedAt), timestamppb.New(t.UpdatedAt)
	}
	return out
}

// teamError maps the teams' own refusals, then the shared ones.
func (h *teamService) teamError(op string, err error) error {
	switch {
	case errors.Is(err, team.ErrInvalid):
		return connect.NewError(connect.CodeInvalidArgument, err)
	case errors.Is(err, teams.ErrNotMember):
		return connect.NewError(connect.CodeFailedPrecondition, err)
	}
	return toConnect(h.log, op, err)
}

func signedIn(ctx context.Context) (access.Principal, error) {
	p, ok := access.FromContext(ctx)
	if !ok {
		return access.Principal{}, connect.NewError(connect.CodeUnauthenticated, errors.New("sign in to see your teams"))
	}
	return p, nil
}

func (h *teamService) ListTeams(ctx context.Context, _ *connect.Request[controlv1.ListTeamsRequest]) (*connect.Response[controlv1.ListTeamsResponse], error) {
	listed, others, err := h.teams.List(ctx)
	if err != nil {
		return nil, h.teamError("ListTeams", err)
	}
	resp := &controlv1.ListTeamsResponse{OtherGroups: others}
	for _, l := range listed {
		t := teamOf(l.Team)
		for _, m := range l.Members {
			t.Members = append(t.Members, &controlv1.TeamMember{UserId: m.UserID, Charged: m.Charged})
		}
		resp.Teams = append(resp.Teams, t)
	}
	return connect.NewResponse(resp), nil
}

func (h *teamService) GetMyTeams(ctx context.Context, _ *connect.Request[controlv1.GetMyTeamsRequest]) (*connect.Response[controlv1.GetMyTeamsResponse], error) {
	p, err := signedIn(ctx)
	if err != nil {
		return nil, err
	}
	m, err := h.teams.Of(ctx, p.Identity.UserID)
	if err != nil {
		return nil, h.teamError("GetMyTeams", err)
	}
	resp := &controlv1.GetMyTeamsResponse{Charged: m.Charged, Choice: m.Choice}
	for _, t := range m.Teams {
		resp.Teams = append(resp.Teams, teamOf(t))
	}
	return connect.NewResponse(resp), nil
}

func (h *teamService) PutTeam(ctx context.Context, req *connect.Request[controlv1.PutTeamRequest]) (*connect.Response[controlv1.PutTeamResponse], error) {
	t := team.Team{Name: req.Msg.GetName(), Restricted: req.Msg.GetRestricted(), Models: req.Msg.GetModels()}
	if err := h.teams.Put(ctx, t); err != nil {
		return nil, h.teamError("PutTeam", err)
	}
	return connect.NewResponse(&controlv1.PutTeamResponse{Team: teamOf(t.Normalized())}), nil
}

func (h *teamService) DeleteTeam(ctx context.Context, req *connect.Request[controlv1.DeleteTeamRequest]) (*connect.Response[controlv1.DeleteTeamResponse], error) {
	if err := h.teams.Delete(ctx, req.Msg.GetName()); err != nil {
		return nil, h.teamError("DeleteTeam", err)
	}
	return connect.NewResponse(&controlv1.DeleteTeamResponse{}), nil
}

func (h *teamService) ChooseTeam(ctx context.Context, req *connect.Request[controlv1.ChooseTeamRequest]) (*connect.Response[controlv1.ChooseTeamResponse], error) {
	p, err := signedIn(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.teams.Choose(ctx, p.Identity.UserID, req.Msg.GetName()); err != nil {
		return nil, h.teamError("ChooseTeam", err)
	}
	charged, err := h.teams.ChargedTeam(ctx, p.Identity.UserID)
	if err != nil {
		return nil, h.teamError("ChooseTeam", err)
	}
	return connect.NewResponse(&controlv1.ChooseTeamResponse{Charged: charged}), nil
}

// spendService implements controlv1connect.SpendServiceHandler.
type spendService struct {
	spend *teams.Spend
	log   *zap.Logger
}

var _ controlv1connect.SpendServiceHandler = (*spendService)(nil)

func (h *spendService) GetSpendReport(ctx context.Context, req *connect.Request[controlv1.GetSpendReportRequest]) (*connect.Response[controlv1.GetSpendReportResponse], error) {
	q := teams.SpendQuery{Team: req.Msg.GetTeam(), UserID: req.Msg.GetUserId()}
	if t := req.Msg.GetStartTime(); t != nil {
		q.Since = t.AsTime()
	}
	if t := req.Msg.GetEndTime(); t != nil {
		q.Until = t.AsTime()
	}
	rows, err := h.spend.Report(ctx, q)
	if errors.Is(err, teams.ErrSpendRange) {
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	if err != nil {
		return nil, toConnect(h.log, "GetSpendReport", err)
	}
	resp := &controlv1.GetSpendReportResponse{}
	for _, r := range rows {
		resp.Rows = append(resp.Rows, &controlv1.SpendRow{Day: r.Day.Format("2006-01-02"), Team: r.Team, UserId: r.UserID, ModelId: r.ModelID,
			Calls: r.Calls, InputTokens: r.Input, OutputTokens: r.Output, CacheReadTokens: r.CacheRead, CacheWriteTokens: r.CacheWrite,
			CostUsd: r.CostUSD, UnpricedCalls: r.UnpricedCalls})
		resp.TotalCostUsd += r.CostUSD
	}
	if req.Msg.GetCsv() {
		b, err := teams.CSV(rows)
		if err != nil {
			return nil, toConnect(h.log, "GetSpendReport", err)
		}
		resp.Csv = string(b)
	}
	return connect.NewResponse(resp), nil
}
