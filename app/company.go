package app

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/control"
	"keygate/adapters/egress"
	"keygate/adapters/metrics"
	"keygate/adapters/relstore"
	"keygate/adapters/secret"
	"keygate/adapters/tracing"
	"keygate/adapters/webhook"
	"keygate/app/company"
	"keygate/app/config"
	appcontrol "keygate/app/control"
	"keygate/app/run"
	"keygate/app/teams"
	"keygate/domain/access"
	"keygate/domain/budget"
	"keygate/domain/token"
	"keygate/ports"
)

// AccountRoutes are the sign-in, token and audit routes of the console.
type AccountRoutes map[string]http.Handler

// OpenSecretBox opens the keyring that seals provider keys and session
// cookies: the configured key (a company), otherwise a key generated in
// the data dir on first start (mode 0600).
func OpenSecretBox(cfg config.Config, dir DataDir) (*secret.Ring, error) {
	ring, err := secret.Load(SecretSource(cfg.Secrets, dir))
	if err != nil {
		return nil, fmt.Errorf("open secret keyring: %w", err)
	}
	return ring, nil
}

// SecretSource says where the keyring's keys come from: the configured
// ones, else the data dir's generated key.
func SecretSource(s config.Secrets, dir DataDir) secret.Source {
	src := secret.Source{Key: s.Key, KeyFile: s.KeyFile, Previous: s.PreviousKeys, DataDir: string(dir)}
	if s.PreviousKeyFile != "" {
		src.PreviousFiles = []string{s.PreviousKeyFile}
	}
	return src
}

// NewAuthGate decides who may use the console and the control API: local
// mode (loopback, no login) unless the configuration selects trusted
// headers or OIDC single sign-on. Logout revokes the session in the store,
// so that every replica refuses its cookie. In company mode the groups of
// every user the gate sees are recorded, for the proxy's membership check
// (NewTokens), and users an identity provider deprovisioned are refused
// (SCIM). A service-account key is accepted on the control API's routes.
func NewAuthGate(ctx context.Context, cfg config.Config, box ports.SecretBox, store *relstore.Store, accounts *company.ServiceAccounts, logger *zap.Logger) (*auth.Gate, error) {
	g, err := auth.New(ctx, authConfig(cfg.Auth), box, logger)
	if err != nil {
		return nil, fmt.Errorf("new auth gate: %w", err)
	}
	g.RevokeSessionsWith(store.Sessions())
	g.ServiceAccountsWith(accounts.Authenticate)
	if g.Mode() != auth.ModeLocal {
		g.RecordGroupsWith(store.Memberships())
		g.RefuseCutWith(store.Directory())
	}
	logger.Info("console sign-in", zap.String("mode", string(g.Mode())))
	return g, nil
}

// authConfig hands the sign-in settings to the gate as they are.
func authConfig(a config.Auth) auth.Config {
	return auth.Config{
		Mode:       auth.Mode(a.Mode),
		UserHeader: a.UserHeader, NameHeader: a.NameHeader, GroupsHeader: a.GroupsHeader,
		TrustedProxies: a.TrustedProxies,
		Issuer:         a.Issuer, ClientID: a.ClientID, ClientSecret: a.ClientSecret, RedirectURL: a.RedirectURL,
		Scopes:    a.Scopes,
		UserClaim: a.UserClaim, NameClaim: a.NameClaim, GroupsClaim: a.GroupsClaim,
		Roles:      access.RoleMap{AdminGroups: a.AdminGroups, MemberGroups: a.MemberGroups},
		SessionTTL: a.SessionTTL,
	}
}

// NewServiceAccounts manages the control API's service-account keys,
// audited.
func NewServiceAccounts(store *relstore.Store, auditor *company.Auditor) *company.ServiceAccounts {
	return company.NewServiceAccounts(store.ServiceAccounts(), run.SystemClock{}, rand.Reader, auditor)
}

// NewAuditor records administrative changes with secrets masked.
func NewAuditor(store *relstore.Store) *company.Auditor {
	return company.NewAuditor(store.Audit(), run.SystemClock{})
}

// NewTokens manages personal gateway tokens, the proxy credentials of
// company mode: bounded in lifetime and number per user as configured, and
// refused to a user whose groups, as the console last saw them, no longer
// admit them under the configured role map.
func NewTokens(cfg config.Config, store *relstore.Store, auditor *company.Auditor) *company.Tokens {
	t := company.NewTokens(store.Tokens(), run.SystemClock{}, rand.Reader)
	t.AuditWith(auditor)
	t.LimitWith(token.Policy{MaxDays: cfg.Tokens.MaxTTLDays, MaxLive: cfg.Tokens.MaxPerUser})
	t.CheckMembershipWith(store.Memberships(), access.RoleMap{AdminGroups: cfg.Auth.AdminGroups, MemberGroups: cfg.Auth.MemberGroups})
	t.CutWith(store.Directory())
	return t
}

// NewTracing exports OpenTelemetry spans over OTLP/HTTP when the
// configuration names a collector (OTEL_EXPORTER_OTLP_ENDPOINT), and is a
// no-op otherwise. The cleanup flushes pending spans.
func NewTracing(ctx context.Context, cfg config.Config, logger *zap.Logger) (*tracing.Tracing, func(), error) {
	t, err := tracing.New(ctx, cfg.TracesURL, Version())
	if err != nil {
		return nil, nil, fmt.Errorf("new tracing: %w", err)
	}
	return t, func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := t.Shutdown(sctx); err != nil {
			logger.Warn("flush traces", zap.Error(err))
		}
	}, nil
}

// NewMetrics is the Prometheus registry behind GET /metrics.
func NewMetrics() *metrics.Metrics { return metrics.New(nil) }

// NewAccountRoutes mounts sign-in (/auth/...), personal tokens, the audit
// log and /metrics: behind KEYGATE_METRICS_TOKEN when set; without it open
// on a laptop, and closed in company mode, where the console listener is
// reachable by every employee and the metrics name users and models.
func NewAccountRoutes(cfg config.Config, gate *auth.Gate, tokens *company.Tokens, auditor *company.Auditor, m *metrics.Metrics) AccountRoutes {
	scrape := m.Handler()
	switch {
	case cfg.MetricsToken != "":
		scrape = metrics.RequireBearer(cfg.MetricsToken, scrape)
	case gate.Mode() != auth.ModeLocal:
		scrape = metrics.Closed("metrics are closed in company mode: set KEYGATE_METRICS_TOKEN and scrape with Authorization: Bearer <token>")
	}
	routes := AccountRoutes{"GET /metrics": scrape}
	for p, h := range gate.Routes() {
		routes[p] = control.SecurityHeaders(h)
	}
	for p, h := range gate.AccountRoutes(tokens, auditor) {
		routes[p] = control.SecurityHeaders(h)
	}
	return routes
}

// proxyAuth is the proxy's credential check: none in local mode (the proxy
// then only listens on loopback), personal gateway tokens otherwise.
func proxyAuth(gate *auth.Gate, tokens *company.Tokens) ports.ProxyAuthenticator {
	if gate.Mode() == auth.ModeLocal {
		return nil
	}
	return tokens
}

// NewTenancy keeps conversations and call records to the user who made
// them (identity.Local on a laptop, where that user administers everything).
// A conversation's owner the store confirmed is remembered for a few
// seconds, so a short turn reads it once instead of five times.
func NewTenancy(store *relstore.Store) *company.Tenancy {
	return company.NewTenancy(store.Owners()).RememberOwners(run.SystemClock{}, ownerMemoTTL)
}

// ownerMemoTTL is how long a replica trusts an owner it read: an object
// never changes hands, but an erased conversation's id may be claimed
// again.
const ownerMemoTTL = 5 * time.Second

// NewBudgets enforces budgets in company mode, and on a laptop given a
// budgets file; otherwise it returns nil (no limits, and no per-call
// counting). The limits live in the database, edited in the console and
// the control API; each replica reads their revision every
// company.LimitsRefresh and reloads them when it moved, so a change
// applies everywhere within about a second. A budgets file
// (KEYGATE_BUDGETS_FILE) is an import: its limits and prices are stored at
// start when the database never held limits, and ignored (logged) once it
// does; its leaseSeconds still applies. Usage is also charged to the
// user's team (the teams use case's charged team in company mode, else the
// first recorded group) and alerts go to the webhook set in the
// console, through the outbound policy.
func NewBudgets(ctx context.Context, cfg config.Config, store *relstore.Store, settings *appcontrol.Settings, auditor *company.Auditor,
	box *secret.Ring, policy *egress.Policy, tm *teams.Service, logger *zap.Logger) (*company.Budgets, func(), error) {
	companyMode := cfg.Auth.Mode != "" && !strings.EqualFold(cfg.Auth.Mode, "local")
	if cfg.BudgetsFile == "" && !companyMode {
		return nil, func() {}, nil
	}
	var file company.BudgetPolicy
	if cfg.BudgetsFile != "" {
		doc, err := os.ReadFile(cfg.BudgetsFile)
		if err != nil {
			return nil, nil, fmt.Errorf("read budget policy: %w", err)
		}
		if file, err = company.ParseBudgetPolicy(doc); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", cfg.BudgetsFile, err)
		}
	}
	b := store.Budgets()
	budgets := company.NewBudgets(b, b, run.SystemClock{}, company.BudgetPolicy{PriceOf: consolePrices(settings), LeaseTTL: file.LeaseTTL}, logger)
	budgets.LimitRatesWith(store.Routing())
	budgets.FollowLimitsIn(store.BudgetLimits(), auditor)
	if tm != nil {
		// The team the teams use case charges: the user's choice, else their
		// first group an administrator marked as a team.
		budgets.ChargeTeamsWith(tm.ChargedTeam)
	} else {
		budgets.ChargeTeamsWith(firstGroup(store.Memberships()))
	}
	budgets.AlertWith(company.NewAlerts(store.BudgetLimits(), store.Stores().Settings, box, webhook.New(policy.HTTPClient()),
		run.SystemClock{}, auditor, logger))
	if cfg.BudgetsFile != "" {
		imported, err := budgets.ImportIfEmpty(ctx, file)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", cfg.BudgetsFile, err)
		}
		if imported {
			if err := importPrices(ctx, settings, file.Prices); err != nil {
				return nil, nil, fmt.Errorf("%s: %w", cfg.BudgetsFile, err)
			}
			logger.Info("budgets file imported into the database; edit the limits in the console from now on",
				zap.String("file", cfg.BudgetsFile), zap.Int("users_with_own_limits", len(file.PerUser)))
		} else {
			logger.Info("budgets file not imported: the database holds budget limits already (the console edits them)",
				zap.String("file", cfg.BudgetsFile))
		}
	}
	if err := budgets.Refresh(ctx); err != nil {
		return nil, nil, err
	}
	watch, stop := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		budgets.Watch(watch, company.LimitsRefresh)
	}()
	return budgets, func() { stop(); <-done }, nil
}

// firstGroup charges a user to the first group their identity provider
// asserted, as the console last saw them; none when nothing was recorded.
func firstGroup(m ports.MembershipStore) company.ChargedTeam {
	return func(ctx context.Context, userID string) (string, error) {
		groups, _, err := m.Groups(ctx, userID)
		if errors.Is(err, ports.ErrNotFound) || len(groups) == 0 {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		return groups[0], nil
	}
}

// importPrices adds a budgets file's prices to the console's, for the
// models the console does not price yet.
func importPrices(ctx context.Context, settings *appcontrol.Settings, prices map[string]budget.Price) error {
	if len(prices) == 0 {
		return nil
	}
	cur, err := settings.Load(ctx)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, p := range cur.Prices {
		have[p.ModelID] = true
	}
	for model, p := range prices {
		if !have[model] {
			cur.Prices = append(cur.Prices, appcontrol.Price{ModelID: model, Input: float64(p.Input) / 1e6, Output: float64(p.Output) / 1e6,
				CacheRead: float64(p.CacheRead) / 1e6, CacheWrite: float64(p.CacheWrite) / 1e6})
		}
	}
	_, err = settings.Update(ctx, cur)
	return err
}

// consolePrices prices a model from the console's settings (USD per
// million tokens) as budget.Price (micro-dollars per million tokens).
func consolePrices(settings *appcontrol.Settings) func(string) budget.Price {
	return func(model string) budget.Price {
		p, ok := settings.PriceOf(model)
		if !ok {
			return budget.Price{}
		}
		return company.PriceFromUSD(p.Input, p.Output, p.CacheRead, p.CacheWrite)
	}
}

// ImportBudgets is `keygate budgets import FILE`: it stores the file's
// default and per-user limits in the configured database, replacing those
// scopes' limits (others stay), and adds its prices to the console's for
// models without one. Running replicas apply the change within
// company.LimitsRefresh. It returns how many scopes it stored.
func ImportBudgets(ctx context.Context, cfg config.Config, dir DataDir, path string, logger *zap.Logger) (int, error) {
	doc, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read budget policy: %w", err)
	}
	file, err := company.ParseBudgetPolicy(doc)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	store, closeStore, err := OpenStore(ctx, cfg, logger, dir)
	if err != nil {
		return 0, err
	}
	defer closeStore()
	auditor := NewAuditor(store)
	settings, err := LoadSettings(ctx, store, auditor)
	if err != nil {
		return 0, err
	}
	b := store.Budgets()
	budgets := company.NewBudgets(b, b, run.SystemClock{}, company.BudgetPolicy{}, logger)
	budgets.FollowLimitsIn(store.BudgetLimits(), auditor)
	n, err := budgets.Import(ctx, file)
	if err != nil {
		return 0, err
	}
	return n, importPrices(ctx, settings, file.Prices)
}
