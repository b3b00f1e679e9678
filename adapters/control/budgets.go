package control

import (
	"context"
	"errors"
	"math"

	"connectrpc.com/connect"
	"go.uber.org/zap"
	"google.golang.org/protobuf/types/known/timestamppb"

	"keygate/app/company"
	"keygate/domain/access"
	"keygate/domain/budget"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// budgetService implements controlv1connect.BudgetServiceHandler.
type budgetService struct {
	budgets *company.Budgets
	alerts  *company.Alerts
	log     *zap.Logger
}

var _ controlv1connect.BudgetServiceHandler = (*budgetService)(nil)

// errNoBudgets: budgets are off (a laptop without a budgets file).
var errNoBudgets = errors.New("budgets are off here: they are kept in company mode (sign-in by OIDC or trusted headers) or with KEYGATE_BUDGETS_FILE")

func (h *budgetService) principal(ctx context.Context) (access.Principal, error) {
	if h.budgets == nil {
		return access.Principal{}, connect.NewError(connect.CodeFailedPrecondition, errNoBudgets)
	}
	p, ok := access.FromContext(ctx)
	if !ok {
		// No guard: the listener is trusted (Options.Guard).
		return access.Local, nil
	}
	return p, nil
}

func (h *budgetService) fail(op string, err error) error {
	var ce *connect.Error
	switch {
	case errors.As(err, &ce):
		return ce
	case errors.Is(err, budget.ErrInvalidScope), errors.Is(err, budget.ErrInvalidLimits), errors.Is(err, company.ErrInvalidWebhook):
		return connect.NewError(connect.CodeInvalidArgument, err)
	case errors.Is(err, company.ErrNoLimitStore):
		return connect.NewError(connect.CodeFailedPrecondition, err)
	}
	return toConnect(h.log, op, err)
}

func scopeOf(s *controlv1.BudgetScope) budget.Scope {
	kinds := map[controlv1.BudgetScopeKind]budget.ScopeKind{
		controlv1.BudgetScopeKind_BUDGET_SCOPE_KIND_DEFAULT: budget.ScopeDefault,
		controlv1.BudgetScopeKind_BUDGET_SCOPE_KIND_USER:    budget.ScopeUser,
		controlv1.BudgetScopeKind_BUDGET_SCOPE_KIND_TEAM:    budget.ScopeTeam,
	}
	return budget.Scope{Kind: kinds[s.GetKind()], ID: s.GetId()}
}

func scopeToProto(s budget.Scope) *controlv1.BudgetScope {
	kinds := map[budget.ScopeKind]controlv1.BudgetScopeKind{
		budget.ScopeDefault: controlv1.BudgetScopeKind_BUDGET_SCOPE_KIND_DEFAULT,
		budget.ScopeUser:    controlv1.BudgetScopeKind_BUDGET_SCOPE_KIND_USER,
		budget.ScopeTeam:    controlv1.BudgetScopeKind_BUDGET_SCOPE_KIND_TEAM,
	}
	return &controlv1.BudgetScope{Kind: kinds[s.Kind], Id: s.ID}
}

// limitsOf reads limits; a cost that is not a finite number, or one too
// large for micro-dollars, is invalid.
func limitsOf(v *controlv1.BudgetLimitValues) (budget.Limits, error) {
	usd := v.GetCostPerMonthUsd()
	if math.IsNaN(usd) || math.IsInf(usd, 0) || usd > 1e12 {
		return budget.Limits{}, budget.ErrInvalidLimits
	}
	return budget.Limits{TokensPerDay: v.GetTokensPerDay(), CostPerMonth: int64(math.Round(usd * 1e6)),
		ConcurrentRuns: int(v.GetConcurrentRuns()), ConcurrentSubagents: int(v.GetConcurrentSubagents()),
		RequestsPerMinute: v.GetRequestsPerMinute(), TokensPerMinute: v.GetTokensPerMinute()}, nil
}

func limitsToProto(l budget.Limits) *controlv1.BudgetLimitValues {
	return &controlv1.BudgetLimitValues{TokensPerDay: l.TokensPerDay, CostPerMonthUsd: float64(l.CostPerMonth) / 1e6,
		ConcurrentRuns: int32(l.ConcurrentRuns), ConcurrentSubagents: int32(l.ConcurrentSubagents),
		RequestsPerMinute: l.RequestsPerMinute, TokensPerMinute: l.TokensPerMinute}
}

func usageToProto(u budget.Usage) *controlv1.BudgetUsage {
	return &controlv1.BudgetUsage{TokensToday: u.TokensToday, CostThisMonthUsd: float64(u.CostThisMonth) / 1e6}
}

func scopedToProto(l budget.ScopedLimits) *controlv1.BudgetLimits {
	return &controlv1.BudgetLimits{Scope: scopeToProto(l.Scope), Limits: limitsToProto(l.Limits), UpdateTime: timestamppb.New(l.UpdatedAt)}
}

func (h *budgetService) ListBudgetLimits(ctx context.Context, _ *connect.Request[controlv1.ListBudgetLimitsRequest]) (*connect.Response[controlv1.ListBudgetLimitsResponse], error) {
	p, err := h.principal(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := h.budgets.ListLimits(ctx, p)
	if err != nil {
		return nil, h.fail("ListBudgetLimits", err)
	}
	resp := &controlv1.ListBudgetLimitsResponse{}
	for _, r := range rows {
		resp.Limits = append(resp.Limits, scopedToProto(r))
	}
	return connect.NewResponse(resp), nil
}

func (h *budgetService) SetBudgetLimits(ctx context.Context, req *connect.Request[controlv1.SetBudgetLimitsRequest]) (*connect.Response[controlv1.SetBudgetLimitsResponse], error) {
	p, err := h.principal(ctx)
	if err != nil {
		return nil, err
	}
	l, err := limitsOf(req.Msg.GetLimits())
	if err != nil {
		return nil, h.fail("SetBudgetLimits", err)
	}
	out, err := h.budgets.SetLimits(ctx, p, budget.ScopedLimits{Scope: scopeOf(req.Msg.GetScope()), Limits: l})
	if err != nil {
		return nil, h.fail("SetBudgetLimits", err)
	}
	return connect.NewResponse(&controlv1.SetBudgetLimitsResponse{Limits: scopedToProto(out)}), nil
}

func (h *budgetService) DeleteBudgetLimits(ctx context.Context, req *connect.Request[controlv1.DeleteBudgetLimitsRequest]) (*connect.Response[controlv1.DeleteBudgetLimitsResponse], error) {
	p, err := h.principal(ctx)
	if err != nil {
		return nil, err
	}
	if err := h.budgets.DeleteLimits(ctx, p, scopeOf(req.Msg.GetScope())); err != nil {
		return nil, h.fail("DeleteBudgetLimits", err)
	}
	return connect.NewResponse(&controlv1.DeleteBudgetLimitsResponse{}), nil
}

func (h *budgetService) GetBudgetStanding(ctx context.Context, req *connect.Request[controlv1.GetBudgetStandingRequest]) (*connect.Response[controlv1.GetBudgetStandingResponse], error) {
	p, err := h.principal(ctx)
	if err != nil {
		return nil, err
	}
	s, err := h.budgets.Standing(ctx, p, req.Msg.GetUserId())
	if err != nil {
		return nil, h.fail("GetBudgetStanding", err)
	}
	return connect.NewResponse(&controlv1.GetBudgetStandingResponse{UserId: s.UserID, Limits: limitsToProto(s.Limits),
		From: scopeToProto(s.From), Usage: usageToProto(s.Usage), Team: s.Team,
		TeamLimits: limitsToProto(s.TeamLimits), TeamUsage: usageToProto(s.TeamUsage)}), nil
}

func (h *budgetService) GetBudgetAlerts(ctx context.Context, _ *connect.Request[controlv1.GetBudgetAlertsRequest]) (*connect.Response[controlv1.GetBudgetAlertsResponse], error) {
	p, err := h.principal(ctx)
	if err != nil {
		return nil, err
	}
	if h.alerts == nil {
		return nil, connect.NewError(connect.CodeFailedPrecondition, errNoBudgets)
	}
	c, err := h.alerts.Config(ctx, p)
	if err != nil {
		return nil, h.fail("GetBudgetAlerts", err)
	}
	return connect.NewResponse(&controlv1.GetBudgetAlertsResponse{WebhookConfigured: c.Configured, WebhookHost: c.Host}), nil
}

func (h *budgetService) SetBudgetAlerts(ctx context.Context, req *connect.Request[controlv1.SetBudgetAlertsRequest]) (*connect.Response[controlv1.SetBudgetAlertsResponse], error) {
	p, err := h.principal(ctx)
	if err != nil {
		return nil, err
	}
	if h.alerts == nil {
		return nil, connect.NewError(connect.CodeFailedPrecondition, errNoBudgets)
	}
	c, err := h.alerts.SetWebhook(ctx, p, req.Msg.GetWebhookUrl())
	if err != nil {
		return nil, h.fail("SetBudgetAlerts", err)
	}
	return connect.NewResponse(&controlv1.SetBudgetAlertsResponse{WebhookConfigured: c.Configured, WebhookHost: c.Host}), nil
}
