package company

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"go.uber.org/zap"

	"keygate/domain/access"
	"keygate/domain/budget"
	"keygate/ports"
)

// settingAlerts names the alert settings in the SettingStore.
const settingAlerts = "budget_alerts"

// alertThresholds are the shares of a budget that send an alert, highest
// first.
var alertThresholds = []int64{100, budget.WarnPercent}

// alertConfigTTL is how long a replica keeps the webhook setting it read:
// a change reaches every replica within it.
const alertConfigTTL = 5 * time.Second

// MaxWebhookURL bounds a webhook URL in bytes.
const MaxWebhookURL = 2048

// Alerts posts a Slack-compatible message ({"text": ...}) to the
// configured webhook when a user's or team's daily tokens or monthly cost
// pass 80% and 100% of its limit: once per scope, limit, threshold and
// period across every replica (the store's alert claims). The webhook URL
// carries its token, so it is stored sealed and never shown again.
type Alerts struct {
	claims   ports.BudgetLimitStore
	settings ports.SettingStore
	box      ports.SecretBox
	post     ports.WebhookPoster
	clock    ports.Clock
	audit    *Auditor
	log      *zap.Logger

	mu       sync.Mutex
	url      string
	loadedAt time.Time
	// sending tracks alerts in flight, for Wait.
	sending sync.WaitGroup
}

// NewAlerts returns the alert use case.
func NewAlerts(claims ports.BudgetLimitStore, settings ports.SettingStore, box ports.SecretBox, post ports.WebhookPoster,
	clock ports.Clock, auditor *Auditor, logger *zap.Logger) *Alerts {
	return &Alerts{claims: claims, settings: settings, box: box, post: post, clock: clock, audit: auditor, log: logger.Named("budget_alerts")}
}

// AlertWith sends budget alerts through a.
func (b *Budgets) AlertWith(a *Alerts) { b.alerts = a }

// Alerts returns the alerts set with AlertWith; nil for nil budgets.
func (b *Budgets) Alerts() *Alerts {
	if b == nil {
		return nil
	}
	return b.alerts
}

type alertSetting struct {
	// Sealed is the webhook URL sealed by the SecretBox, base64.
	Sealed string `json:"sealed_url"`
}

// AlertConfig is what an administrator sees of the alert settings: only
// whether a webhook is set and its host, never its URL.
type AlertConfig struct {
	Configured bool
	Host       string
}

// Config returns the alert settings to an administrator.
func (a *Alerts) Config(ctx context.Context, caller access.Principal) (AlertConfig, error) {
	if err := caller.RequireAdmin(); err != nil {
		return AlertConfig{}, fmt.Errorf("read budget alerts: %w", err)
	}
	u, err := a.load(ctx)
	if err != nil || u == "" {
		return AlertConfig{}, err
	}
	p, err := url.Parse(u)
	if err != nil {
		return AlertConfig{Configured: true}, nil
	}
	return AlertConfig{Configured: true, Host: p.Host}, nil
}

// ErrInvalidWebhook means a webhook URL that is not an absolute http(s)
// URL of bounded length.
var ErrInvalidWebhook = errors.New("the webhook must be an https:// (or http://) URL of at most 2048 bytes")

// SetWebhook stores rawURL, sealed, as the alerts' webhook ("" removes
// it); administrators only, audited as budget_alerts.update without the
// URL.
func (a *Alerts) SetWebhook(ctx context.Context, caller access.Principal, rawURL string) (AlertConfig, error) {
	if err := caller.RequireAdmin(); err != nil {
		return AlertConfig{}, fmt.Errorf("set budget alerts: %w", err)
	}
	var s alertSetting
	if rawURL != "" {
		p, err := url.Parse(rawURL)
		if err != nil || len(rawURL) > MaxWebhookURL || (p.Scheme != "https" && p.Scheme != "http") || p.Host == "" {
			return AlertConfig{}, ErrInvalidWebhook
		}
		sealed, err := a.box.Seal([]byte(rawURL))
		if err != nil {
			return AlertConfig{}, fmt.Errorf("seal the webhook: %w", err)
		}
		s.Sealed = base64.StdEncoding.EncodeToString(sealed)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return AlertConfig{}, fmt.Errorf("encode budget alerts: %w", err)
	}
	if err := a.settings.PutSetting(ctx, settingAlerts, raw); err != nil {
		return AlertConfig{}, fmt.Errorf("store budget alerts: %w", err)
	}
	a.mu.Lock()
	a.url, a.loadedAt = rawURL, a.clock.Now()
	a.mu.Unlock()
	if a.audit != nil {
		if err := a.audit.Record(ctx, caller, "budget_alerts.update", "webhook", nil, map[string]bool{"webhook_set": rawURL != ""}); err != nil {
			a.log.Error("budget alerts change not audited", zap.Error(err))
		}
	}
	return a.Config(ctx, caller)
}

// load returns the webhook URL ("" for none), read again once older than
// alertConfigTTL.
func (a *Alerts) load(ctx context.Context) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.clock.Now()
	if !a.loadedAt.IsZero() && now.Sub(a.loadedAt) < alertConfigTTL {
		return a.url, nil
	}
	raw, err := a.settings.Setting(ctx, settingAlerts)
	var s alertSetting
	switch {
	case errors.Is(err, ports.ErrNotFound):
	case err != nil:
		return "", fmt.Errorf("read budget alerts: %w", err)
	default:
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("decode budget alerts: %w", err)
		}
	}
	u := ""
	if s.Sealed != "" {
		sealed, err := base64.StdEncoding.DecodeString(s.Sealed)
		if err != nil {
			return "", fmt.Errorf("decode budget alerts: %w", err)
		}
		plain, err := a.box.Open(sealed)
		if err != nil {
			return "", fmt.Errorf("open the budget alerts' webhook: %w", err)
		}
		u = string(plain)
	}
	a.url, a.loadedAt = u, now
	return u, nil
}

// check sends the alerts scope's usage (counter) newly passed under l at
// now. A nil Alerts sends nothing.
func (a *Alerts) check(ctx context.Context, b *Budgets, scope budget.Scope, counter string, l budget.Limits, now time.Time) {
	if a == nil || (l.TokensPerDay <= 0 && l.CostPerMonth <= 0) {
		return
	}
	hook, err := a.load(ctx)
	if err != nil {
		a.log.Warn("budget alerts not checked", zap.Error(err))
		return
	}
	if hook == "" {
		return
	}
	u, err := b.usage(ctx, counter, now)
	if err != nil {
		a.log.Warn("budget alerts not checked", zap.Error(err))
		return
	}
	type passed struct {
		limit       budget.Limit
		used, max   int64
		period, key string
	}
	var todo []passed
	if l.TokensPerDay > 0 {
		todo = append(todo, passed{budget.LimitTokensPerDay, u.TokensToday, l.TokensPerDay, budget.DayKey(now), ""})
	}
	if l.CostPerMonth > 0 {
		todo = append(todo, passed{budget.LimitCostPerMonth, u.CostThisMonth, l.CostPerMonth, budget.MonthKey(now), ""})
	}
	for _, p := range todo {
		for _, t := range alertThresholds {
			if p.used*100 < t*p.max {
				continue
			}
			key := fmt.Sprintf("%s|%s|%d|%s", scope, p.limit, t, p.period)
			first, err := a.claims.ClaimBudgetAlert(ctx, key, now)
			if err != nil {
				a.log.Warn("budget alert not claimed", zap.String("alert", key), zap.Error(err))
				break
			}
			if first {
				a.send(ctx, hook, AlertText(scope, p.limit, t, p.used, p.max))
			}
			// A higher threshold passed implies the lower: its alert is
			// claimed by then or not worth sending late.
			break
		}
	}
}

// send posts text in the background, past the end of ctx (the call that
// counted the usage): a slow webhook never delays a turn.
func (a *Alerts) send(ctx context.Context, hook, text string) {
	body, err := json.Marshal(map[string]string{"text": text})
	if err != nil {
		return
	}
	a.sending.Add(1)
	go func() {
		defer a.sending.Done()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := a.post.PostWebhook(ctx, hook, body); err != nil {
			a.log.Warn("budget alert not delivered", zap.String("text", text), zap.Error(err))
		}
	}()
}

// Wait waits for the alerts in flight (specs, shutdown).
func (a *Alerts) Wait() { a.sending.Wait() }

// AlertText is the message of an alert.
func AlertText(scope budget.Scope, limit budget.Limit, percent, used, max int64) string {
	who := "The default budget"
	switch scope.Kind {
	case budget.ScopeUser:
		who = "User " + scope.ID
	case budget.ScopeTeam:
		who = "Team " + scope.ID
	}
	what := fmt.Sprintf("%d of %d tokens today", used, max)
	if limit == budget.LimitCostPerMonth {
		what = fmt.Sprintf("$%.2f of $%.2f this month", float64(used)/1e6, float64(max)/1e6)
	}
	if percent >= 100 {
		return fmt.Sprintf("Keygate: %s reached its budget (%s); further requests are refused until it resets.", who, what)
	}
	return fmt.Sprintf("Keygate: %s passed %d%% of its budget (%s).", who, percent, what)
}
