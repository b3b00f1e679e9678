package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"keygate/adapters/control"
	"keygate/adapters/provider"
	"keygate/adapters/provider/discovery"
	"keygate/adapters/relstore"
	"keygate/adapters/secretbox"
	"keygate/app/config"
	appcontrol "keygate/app/control"
	"keygate/console"
	"keygate/ports"
)

// providerIdleTimeout fails a provider call whose connection is silent this
// long (engine-reference §1.8: the Go era used 90 s).
const providerIdleTimeout = 90 * time.Second

// ControlRoutes are the control API's and the console's HTTP routes.
type ControlRoutes map[string]http.Handler

// OpenSecretBox opens the key that seals provider keys at rest; a laptop
// install generates it in the data dir on first start (mode 0600).
func OpenSecretBox(dir DataDir) (ports.SecretBox, error) {
	box, err := secretbox.Open(string(dir))
	if err != nil {
		return nil, fmt.Errorf("open secret box: %w", err)
	}
	return box, nil
}

// LoadSettings reads the service settings (detailed mode, retention,
// prices) once at start; later changes go through the control API.
func LoadSettings(ctx context.Context, store *relstore.Store) (*appcontrol.Settings, error) {
	s := appcontrol.NewSettings(store.Stores().Settings)
	if _, err := s.Load(ctx); err != nil {
		return nil, fmt.Errorf("load settings: %w", err)
	}
	return s, nil
}

// NewModelProvider is the provider client every model call goes through:
// one call record per attempt in the store, detailed mode as configured,
// and each prompt kept so the console can explain cache breaks.
func NewModelProvider(logger *zap.Logger, store *relstore.Store, settings *appcontrol.Settings) ports.ModelProvider {
	client := provider.New(provider.Options{
		Recorder:    store.CallRecords(),
		Detailed:    settings.Detailed,
		Logger:      logger.Named("provider"),
		IdleTimeout: providerIdleTimeout,
	})
	return appcontrol.NewPromptTap(client, store.Prompts())
}

// NewModels is the model-configuration use case: keys sealed, discovery,
// connection tests, and endpoint resolution for runs.
func NewModels(store *relstore.Store, box ports.SecretBox, mp ports.ModelProvider) *appcontrol.Models {
	return appcontrol.NewModels(appcontrol.ModelsOptions{
		Store:      store.Stores().ModelConfigs,
		Secrets:    box,
		Provider:   mp,
		Lister:     control.NewDiscovery(discovery.New(nil)),
		RequestURL: provider.RequestURL,
	})
}

// NewControlRoutes mounts the control API and the console.
func NewControlRoutes(cfg config.Config, logger *zap.Logger, store *relstore.Store, settings *appcontrol.Settings, models *appcontrol.Models) ControlRoutes {
	calls := store.CallRecords()
	return control.Routes(control.Options{
		Models:        models,
		Settings:      settings,
		Calls:         appcontrol.NewCalls(appcontrol.CallsOptions{Lister: calls, Reader: calls, Prompts: store.Prompts()}),
		Dashboard:     appcontrol.NewDashboard(calls, settings, nil),
		Conversations: appcontrol.NewConversations(store.Conversations(), store.Stores().Conversations),
		Setup:         cursorSetup(cfg),
		Console:       console.Dist(),
		Guard:         loopbackOnly(logger),
		Logger:        logger,
	})
}

// NewRetention deletes detailed call records older than the configured age.
func NewRetention(store *relstore.Store, settings *appcontrol.Settings) *appcontrol.Retention {
	return appcontrol.NewRetention(settings, store.CallRecords(), nil)
}

// cursorSetup answers the console's Connect Cursor page.
func cursorSetup(cfg config.Config) func(context.Context) (control.Setup, error) {
	return func(context.Context) (control.Setup, error) {
		s := control.Setup{CACertificateURL: "/ca.crt"}
		if cfg.ProxyListen != "" {
			s.ProxyURL = "http://" + cfg.ProxyListen
			s.SetupCommand = "keygate cursor setup --proxy " + cfg.ProxyListen
		}
		return s, nil
	}
}

// loopbackOnly is the laptop mode of the console: no login, so only
// connections from this machine are served. Company mode replaces it with
// SSO.
func loopbackOnly(logger *zap.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			host, _, err := net.SplitHostPort(r.RemoteAddr)
			if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
				logger.Warn("refused non-loopback console request", zap.String("remote", r.RemoteAddr))
				http.Error(w, "the console and control API answer loopback clients only unless SSO is configured", http.StatusForbidden)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
