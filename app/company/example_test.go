package company_test

import (
	"context"
	"crypto/rand"
	"net/http"
	"os"

	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/metrics"
	"keygate/adapters/postgres"
	"keygate/adapters/secret"
	"keygate/adapters/tracing"
	"keygate/app/company"
	"keygate/app/run"
	"keygate/ports"
)

// Example_wiring shows how the composition root puts the company pieces
// together for a PostgreSQL deployment (SQLite is the same without the
// relay). It compiles with the code, so it stays true; it is not run.
func Example_wiring() {
	ctx, logger := context.Background(), zap.NewNop()
	var provider ports.ModelProvider // the provider client (adapters/provider + PromptTap)

	// Secrets at rest and session cookies: one keyring shared by replicas.
	box, _ := secret.Load(secret.SourceFromEnv(os.Getenv, "/data"))

	db, _ := postgres.Open(ctx, os.Getenv("KEYGATE_DATABASE_URL"), logger)
	st := postgres.NewStore(db)
	clock := run.SystemClock{}

	// Audit, tokens, tenancy, budgets.
	auditor := company.NewAuditor(st.Audit(), clock)
	tokens := company.NewTokens(st.Tokens(), clock, rand.Reader)
	tokens.AuditWith(auditor)
	tenancy := company.NewTenancy(st.Owners())
	policy, _ := company.ParseBudgetPolicy([]byte(`{"default": {"tokensPerDay": 2000000, "concurrentRuns": 3}}`))
	budgets := company.NewBudgets(st.Budgets(), st.Budgets(), clock, policy, logger)

	// Model calls: budget check innermost, then traces, then metrics.
	m := metrics.New(nil)
	tr, _ := tracing.New(ctx, os.Getenv, "v1")
	provider = m.Provider(tr.Provider(budgets.Provider(provider)))

	// Stores the use cases see: audited configuration, scoped reads.
	_ = auditor.ModelConfigs(st.Stores().ModelConfigs)       // → appcontrol.ModelsOptions.Store
	_ = auditor.Settings(st.Stores().Settings)               // → appcontrol.NewSettings
	_ = tenancy.CallReader(st.CallRecords())                 // → appcontrol.CallsOptions.Reader
	_ = tenancy.CallLister(st.CallRecords())                 // → CallsOptions.Lister, NewDashboard
	_ = tenancy.Conversations(st.Conversations())            // → appcontrol.NewConversations
	_ = tenancy.ConversationStore(st.Stores().Conversations) // → run.Options.Conversations
	_ = m.Runs(st.Stores().Runs)                             // → run.Options.Runs
	_ = provider                                             // → run.Options.Provider

	// Console sign-in: Guard replaces loopbackOnly in control.Options.
	cfg, _ := auth.ConfigFromEnv(os.Getenv)
	gate, _ := auth.New(ctx, cfg, box, logger)
	routes := map[string]http.Handler{"GET /metrics": m.Handler()}
	for p, h := range gate.Routes() {
		routes[p] = h
	}
	for p, h := range gate.AccountRoutes(tokens, auditor) {
		routes[p] = h
	}
	_ = gate.Guard // → control.Options.Guard; tokens → cursorproxy.Options.Auth (company mode)

	// Replicas: the RunSSE holder claims the request id, others forward.
	relay, _ := postgres.NewRelay(ctx, db, postgres.RelayOptions{}, logger)
	defer relay.Close()
}
