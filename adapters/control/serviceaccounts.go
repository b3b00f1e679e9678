package control

import (
	"context"
	"errors"
	"fmt"

	"connectrpc.com/connect"
	"go.uber.org/zap"
	"google.golang.org/protobuf/types/known/timestamppb"

	"keygate/domain/access"
	"keygate/domain/token"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
	"keygate/ports"
)

// ServiceAccounts is what ServiceAccountService needs of the use case
// (company.ServiceAccounts).
type ServiceAccounts interface {
	Create(ctx context.Context, caller access.Principal, name string, role access.Role, days int) (ports.ServiceAccount, string, error)
	List(ctx context.Context, caller access.Principal) ([]ports.ServiceAccount, error)
	Revoke(ctx context.Context, caller access.Principal, id string) (ports.ServiceAccount, error)
}

// serviceAccountService implements
// controlv1connect.ServiceAccountServiceHandler.
type serviceAccountService struct {
	accounts ServiceAccounts
	log      *zap.Logger
}

var _ controlv1connect.ServiceAccountServiceHandler = (*serviceAccountService)(nil)

func timeOrNil(t interface{ IsZero() bool }, ts *timestamppb.Timestamp) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return ts
}

func serviceAccountOf(a ports.ServiceAccount) *controlv1.ServiceAccount {
	role := controlv1.ServiceAccountRole_SERVICE_ACCOUNT_ROLE_ADMIN
	if a.Role == access.ReadOnly {
		role = controlv1.ServiceAccountRole_SERVICE_ACCOUNT_ROLE_READ_ONLY
	}
	k := a.Key
	return &controlv1.ServiceAccount{Id: k.ID, Name: k.Name, Role: role, Hint: k.Hint, CreatedBy: a.CreatedBy,
		CreateTime: timestamppb.New(k.CreatedAt), ExpireTime: timeOrNil(k.ExpiresAt, timestamppb.New(k.ExpiresAt)),
		LastUseTime: timeOrNil(k.LastUsedAt, timestamppb.New(k.LastUsedAt)), RevokeTime: timeOrNil(k.RevokedAt, timestamppb.New(k.RevokedAt))}
}

// caller is the request's principal; the guard put it there.
func caller(ctx context.Context) access.Principal {
	p, _ := access.FromContext(ctx)
	return p
}

func (h *serviceAccountService) fail(op string, err error) error {
	var lerr *token.LifetimeError
	switch {
	case errors.As(err, &lerr), errors.Is(err, token.ErrNoName):
		return connect.NewError(connect.CodeInvalidArgument, err)
	}
	return toConnect(h.log, op, err)
}

func (h *serviceAccountService) ListServiceAccounts(ctx context.Context, _ *connect.Request[controlv1.ListServiceAccountsRequest]) (*connect.Response[controlv1.ListServiceAccountsResponse], error) {
	list, err := h.accounts.List(ctx, caller(ctx))
	if err != nil {
		return nil, h.fail("ListServiceAccounts", err)
	}
	resp := &controlv1.ListServiceAccountsResponse{}
	for _, a := range list {
		resp.ServiceAccounts = append(resp.ServiceAccounts, serviceAccountOf(a))
	}
	return connect.NewResponse(resp), nil
}

func (h *serviceAccountService) CreateServiceAccount(ctx context.Context, req *connect.Request[controlv1.CreateServiceAccountRequest]) (*connect.Response[controlv1.CreateServiceAccountResponse], error) {
	var role access.Role
	switch req.Msg.GetRole() {
	case controlv1.ServiceAccountRole_SERVICE_ACCOUNT_ROLE_ADMIN:
		role = access.Admin
	case controlv1.ServiceAccountRole_SERVICE_ACCOUNT_ROLE_READ_ONLY:
		role = access.ReadOnly
	default:
		return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("choose the service account's role: admin or read-only"))
	}
	if len(req.Msg.GetName()) > 100 {
		return nil, connect.NewError(connect.CodeInvalidArgument, errors.New("a service account's name holds at most 100 characters"))
	}
	a, key, err := h.accounts.Create(ctx, caller(ctx), req.Msg.GetName(), role, int(req.Msg.GetDays()))
	if err != nil {
		return nil, h.fail("CreateServiceAccount", err)
	}
	return connect.NewResponse(&controlv1.CreateServiceAccountResponse{ServiceAccount: serviceAccountOf(a), Key: key}), nil
}

func (h *serviceAccountService) RevokeServiceAccount(ctx context.Context, req *connect.Request[controlv1.RevokeServiceAccountRequest]) (*connect.Response[controlv1.RevokeServiceAccountResponse], error) {
	a, err := h.accounts.Revoke(ctx, caller(ctx), req.Msg.GetId())
	if err != nil {
		return nil, h.fail("RevokeServiceAccount", err)
	}
	return connect.NewResponse(&controlv1.RevokeServiceAccountResponse{ServiceAccount: serviceAccountOf(a)}), nil
}
