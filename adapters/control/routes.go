package control

import (
	"context"
	"io/fs"
	"net/http"

	"connectrpc.com/connect"
	"go.uber.org/zap"

	"keygate/app/company"
	appcontrol "keygate/app/control"
	"keygate/app/teams"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// Options are the use cases the control API serves. Conversations may be
// nil while no store lists conversations; its service then answers
// Unimplemented. Console nil serves no console.
type Options struct {
	Models    *appcontrol.Models
	Providers *appcontrol.Providers
	Aliases   *appcontrol.Aliases
	// Discovery lists an endpoint's models; Tester tests a model's
	// connection (ModelService's DiscoverModels and TestModel).
	Discovery *appcontrol.Discovery
	Tester    *appcontrol.Tester
	Calls     *appcontrol.Calls
	Dashboard *appcontrol.Dashboard
	// CursorCloud is the Cursor cloud ledger page; nil answers allow and
	// no rows.
	CursorCloud *appcontrol.CursorCloud
	Settings    *appcontrol.Settings
	// TabModel is the Cursor Tab model setting; nil serves no Tab.
	TabModel *appcontrol.TabModel
	// Features are the feature model settings (Tab, inline edits, commit
	// messages); nil answers none.
	Features      *appcontrol.FeatureModels
	Conversations *appcontrol.Conversations
	// Memories lists and deletes users' memories; nil leaves MemoryService
	// unimplemented.
	Memories *appcontrol.Memories
	// Mappings put Cursor's model ids on Keygate models; nil leaves
	// ModelMappingService unimplemented.
	Mappings *appcontrol.Mappings
	// Teams manages teams (company mode); nil leaves TeamService
	// unimplemented. Spend reports spend; nil leaves SpendService
	// unimplemented.
	Teams *teams.Service
	Spend *teams.Spend
	// ServiceAccounts manages the control API's keys; nil leaves
	// ServiceAccountService unimplemented.
	ServiceAccounts ServiceAccounts
	// Budgets and BudgetAlerts are the budget limits and their alerts; nil
	// answers FailedPrecondition (budgets are off).
	Budgets      *company.Budgets
	BudgetAlerts *company.Alerts
	// Setup answers the Connect Cursor page.
	Setup   func(ctx context.Context) (Setup, error)
	Console fs.FS
	// Guard wraps every control route and the console, for example with
	// the administrator login. Without one the API is open to anyone who
	// reaches the listener, so mount it only on a trusted address.
	Guard  func(http.Handler) http.Handler
	Logger *zap.Logger
}

// Routes returns the Connect services under /keygate.control.v1.* and the
// console at "/" (the catch-all; it answers GET and HEAD only), as patterns
// for net/http.ServeMux. "/" rather than "GET /": the latter would conflict
// with the method-less Connect prefixes in ServeMux.
func Routes(o Options) map[string]http.Handler {
	log := o.Logger
	if log == nil {
		log = zap.NewNop()
	}
	log = log.Named("control")
	routes := map[string]http.Handler{}
	guard := o.Guard
	if guard == nil {
		guard = func(h http.Handler) http.Handler { return h }
	}
	// The security headers go outermost, so that the guard's refusals
	// carry them too; the byte limit applies before anything reads a body.
	add := func(p string, h http.Handler) {
		routes[p] = SecurityHeaders(http.MaxBytesHandler(guard(requireRole(h)), MaxRequestBytes))
	}
	limit := connect.WithReadMaxBytes(MaxRequestBytes)
	add(controlv1connect.NewModelServiceHandler(&modelService{models: o.Models, discovery: o.Discovery, tester: o.Tester, calls: o.Calls, log: log}, limit))
	add(controlv1connect.NewProviderServiceHandler(&providerService{providers: o.Providers, log: log}, limit))
	add(controlv1connect.NewAliasServiceHandler(&aliasService{aliases: o.Aliases, log: log}, limit))
	add(controlv1connect.NewCallServiceHandler(&callService{calls: o.Calls, log: log}, limit))
	add(controlv1connect.NewDashboardServiceHandler(&dashboardService{dashboard: o.Dashboard, cloud: o.CursorCloud, log: log}, limit))
	add(controlv1connect.NewSettingServiceHandler(&settingService{settings: o.Settings, tab: o.TabModel, features: o.Features, log: log}, limit))
	if o.Conversations != nil {
		add(controlv1connect.NewConversationServiceHandler(&conversationService{conversations: o.Conversations, log: log}, limit))
	} else {
		add(controlv1connect.NewConversationServiceHandler(controlv1connect.UnimplementedConversationServiceHandler{}, limit))
	}
	if o.Memories != nil {
		add(controlv1connect.NewMemoryServiceHandler(&memoryService{memories: o.Memories, log: log}, limit))
	} else {
		add(controlv1connect.NewMemoryServiceHandler(controlv1connect.UnimplementedMemoryServiceHandler{}, limit))
	}
	if o.Mappings != nil {
		add(controlv1connect.NewModelMappingServiceHandler(&mappingService{mappings: o.Mappings, log: log}, limit))
	} else {
		add(controlv1connect.NewModelMappingServiceHandler(controlv1connect.UnimplementedModelMappingServiceHandler{}, limit))
	}
	if o.Teams != nil {
		add(controlv1connect.NewTeamServiceHandler(&teamService{teams: o.Teams, log: log}, limit))
	} else {
		add(controlv1connect.NewTeamServiceHandler(controlv1connect.UnimplementedTeamServiceHandler{}, limit))
	}
	if o.Spend != nil {
		add(controlv1connect.NewSpendServiceHandler(&spendService{spend: o.Spend, log: log}, limit))
	} else {
		add(controlv1connect.NewSpendServiceHandler(controlv1connect.UnimplementedSpendServiceHandler{}, limit))
	}
	if o.ServiceAccounts != nil {
		add(controlv1connect.NewServiceAccountServiceHandler(&serviceAccountService{accounts: o.ServiceAccounts, log: log}, limit))
	} else {
		add(controlv1connect.NewServiceAccountServiceHandler(controlv1connect.UnimplementedServiceAccountServiceHandler{}, limit))
	}
	add(controlv1connect.NewBudgetServiceHandler(&budgetService{budgets: o.Budgets, alerts: o.BudgetAlerts, log: log}, limit))
	setup := o.Setup
	if setup == nil {
		setup = func(context.Context) (Setup, error) { return Setup{}, nil }
	}
	add(controlv1connect.NewSetupServiceHandler(&setupService{setup: setup}, limit))
	if o.Console != nil {
		add("/", Assets(o.Console))
	}
	return routes
}

// MaxRequestBytes bounds a control request, on the wire and after
// decompression. The largest real request, a model with its extra
// parameters and custom headers at their limits (app/control), is about
// 350 KiB.
const MaxRequestBytes = 1 << 20
