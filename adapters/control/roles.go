package control

import (
	"net/http"

	"connectrpc.com/connect"

	"keygate/domain/access"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// adminOnly lists the procedures that change Keygate's configuration or
// spend a provider key outside a user's turn. Members may call every other
// procedure; the use cases behind them scope what a member sees.
var adminOnly = map[string]bool{
	controlv1connect.ModelServiceCreateModelProcedure:       true,
	controlv1connect.ModelServiceUpdateModelProcedure:       true,
	controlv1connect.ModelServiceDeleteModelProcedure:       true,
	controlv1connect.ModelServiceSetModelEnabledProcedure:   true,
	controlv1connect.ModelServiceReorderModelsProcedure:     true,
	controlv1connect.ModelServiceDuplicateModelProcedure:    true,
	controlv1connect.ModelServiceDiscoverModelsProcedure:    true,
	controlv1connect.ModelServiceTestModelProcedure:         true,
	controlv1connect.SettingServiceUpdateSettingsProcedure:  true,
	controlv1connect.SettingServiceSetTabModelProcedure:     true,
	controlv1connect.SettingServiceSetFeatureModelProcedure: true,
	// Providers hold the keys: a member sees none of them, not even
	// masked, nor their health.
	controlv1connect.ProviderServiceListProvidersProcedure:         true,
	controlv1connect.ProviderServiceCreateProviderProcedure:        true,
	controlv1connect.ProviderServiceUpdateProviderProcedure:        true,
	controlv1connect.ProviderServiceDeleteProviderProcedure:        true,
	controlv1connect.ProviderServiceAddProviderKeyProcedure:        true,
	controlv1connect.ProviderServiceUpdateProviderKeyProcedure:     true,
	controlv1connect.ProviderServiceSetProviderKeyEnabledProcedure: true,
	controlv1connect.ProviderServiceDeleteProviderKeyProcedure:     true,
	controlv1connect.AliasServiceCreateAliasProcedure:              true,
	controlv1connect.AliasServiceUpdateAliasProcedure:              true,
	controlv1connect.AliasServiceDeleteAliasProcedure:              true,
	controlv1connect.AliasServiceSetAliasEnabledProcedure:          true,
	controlv1connect.AliasServiceDrainAliasTargetProcedure:         true,
	// Which Cursor model ids run on Keygate is configuration.
	controlv1connect.ModelMappingServiceSetModelMappingProcedure:    true,
	controlv1connect.ModelMappingServiceDeleteModelMappingProcedure: true,
	// Budgets: a member reads only their own standing (the use case
	// scopes it); limits and alerts are configuration.
	controlv1connect.BudgetServiceListBudgetLimitsProcedure:   true,
	controlv1connect.BudgetServiceSetBudgetLimitsProcedure:    true,
	controlv1connect.BudgetServiceDeleteBudgetLimitsProcedure: true,
	controlv1connect.BudgetServiceGetBudgetAlertsProcedure:    true,
	controlv1connect.BudgetServiceSetBudgetAlertsProcedure:    true,
	// Teams and their allow-lists are configuration; the list of every
	// team's members is not a member's to read (GetMyTeams is theirs).
	controlv1connect.TeamServiceListTeamsProcedure:  true,
	controlv1connect.TeamServicePutTeamProcedure:    true,
	controlv1connect.TeamServiceDeleteTeamProcedure: true,
	// Who holds a key to the control API is an administrator's business.
	controlv1connect.ServiceAccountServiceListServiceAccountsProcedure:  true,
	controlv1connect.ServiceAccountServiceCreateServiceAccountProcedure: true,
	controlv1connect.ServiceAccountServiceRevokeServiceAccountProcedure: true,
}

// readOnly lists the only procedures a read-only principal (a read-only
// service account) may call: they read configuration and usage. It calls
// them as an administrator would, so it sees every user's rows; it may
// call nothing else, so a procedure added later is refused to it until it
// is listed here. Conversations, memories and call details (prompts and
// answers) are not listed: a monitoring key never reads what people wrote.
var readOnly = map[string]bool{
	controlv1connect.ModelServiceListModelsProcedure:               true,
	controlv1connect.ProviderServiceListProvidersProcedure:         true,
	controlv1connect.AliasServiceListAliasesProcedure:              true,
	controlv1connect.ModelMappingServiceListModelMappingsProcedure: true,
	controlv1connect.SettingServiceGetSettingsProcedure:            true,
	controlv1connect.SettingServiceGetTabModelProcedure:            true,
	controlv1connect.SettingServiceGetFeatureModelsProcedure:       true,
	controlv1connect.DashboardServiceGetDashboardProcedure:         true,
	controlv1connect.DashboardServiceGetCursorCloudProcedure:       true,
	controlv1connect.CallServiceListCallsProcedure:                 true,
	controlv1connect.SetupServiceGetCursorSetupProcedure:           true,
}

// requireRole refuses an administrator-only procedure to a signed-in
// member, and every procedure but the readOnly ones to a read-only
// principal (which calls those as an administrator), with
// PermissionDenied, in the caller's Connect protocol. A
// request without a principal passes: then no Guard is configured, and
// Options.Guard documents that such a listener must be trusted.
func requireRole(next http.Handler) http.Handler {
	errs := connect.NewErrorWriter()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := access.FromContext(r.Context())
		if ok && p.Role == access.ReadOnly {
			if !readOnly[r.URL.Path] {
				_ = errs.Write(w, r, connect.NewError(connect.CodePermissionDenied, errReadOnly))
				return
			}
			p.Role = access.Admin
			next.ServeHTTP(w, r.WithContext(access.NewContext(r.Context(), p)))
			return
		}
		if ok && adminOnly[r.URL.Path] && !p.IsAdmin() {
			err := connect.NewError(connect.CodePermissionDenied, errAdminOnly)
			_ = errs.Write(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}
