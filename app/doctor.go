package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/ca"
	"keygate/adapters/cursorproxy/setup"
	"keygate/adapters/egress"
	"keygate/adapters/postgres"
	"keygate/adapters/provider"
	"keygate/adapters/relstore"
	"keygate/adapters/secret"
	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/app/config"
	appcontrol "keygate/app/control"
	"keygate/app/doctor"
	"keygate/app/run"
)

// DoctorOptions tune DoctorChecks.
type DoctorOptions struct {
	// CursorSettings is the Cursor settings file to check; empty means
	// Cursor's user settings for this OS.
	CursorSettings string
	// ProviderTimeout bounds each model's connection test (default 20 s).
	ProviderTimeout time.Duration
	// Now is the clock certificates are checked at (time.Now when nil).
	Now func() time.Time
}

// DoctorChecks are the checks of `keygate doctor` for cfg, whose
// validation problems are given (config.Parse), in the order they print.
// They look without changing anything: no migration is applied, no key
// file or CA is generated; connection tests go through the outbound policy
// and the provider client keygate serve uses, each audited and recorded
// like a console test. The cleanup closes what the checks opened.
func DoctorChecks(cfg config.Config, problems []error, o DoctorOptions) ([]doctor.Check, func()) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.ProviderTimeout <= 0 {
		o.ProviderTimeout = 20 * time.Second
	}
	d := &diagnosis{cfg: cfg, o: o}
	d.dir, _ = filepath.Abs(cfg.DataDir)
	mode := auth.Mode(cfg.Auth.Mode)
	d.company = mode != "" && mode != auth.ModeLocal
	d.shape = company.Shape{
		Company: d.company, SharedStore: cfg.DatabaseURL != "", SingleReplica: cfg.SingleReplica,
		KeyConfigured: cfg.Secrets.Key != "" || cfg.Secrets.KeyFile != "", CAConfigured: cfg.CACert != "",
	}
	d.endpoint = proxyEndpointOf(cfg)
	return []doctor.Check{
		{Name: "configuration", Run: func(context.Context) doctor.Result { return doctor.Configuration(problems) }},
		{Name: "database", Run: d.database},
		{Name: "secret key", Run: d.secretKey},
		{Name: "CA", Run: d.ca},
		{Name: "proxy TLS", Run: func(context.Context) doctor.Result {
			return doctor.ProxyTLS(doctor.ProxyFacts{Listen: cfg.ProxyListen, CertFile: cfg.ProxyTLSCert, KeyFile: cfg.ProxyTLSKey,
				URL: d.endpoint, Company: d.company, Now: o.Now()})
		}},
		{Name: "trusted proxies", Run: func(context.Context) doctor.Result {
			return doctor.TrustedProxies(string(mode), cfg.Auth.TrustedProxies, authConfig(cfg.Auth).Check())
		}},
		{Name: "outbound allow-list", Run: d.allowList},
		{Name: "metrics token", Run: func(context.Context) doctor.Result { return doctor.MetricsToken(d.company, cfg.MetricsToken) }},
		{Name: "providers", Expand: d.providers},
		{Name: "Cursor on this machine", Run: d.cursor},
	}, d.close
}

// diagnosis is what the doctor's checks found so far; they run one after
// the other, and later ones use what earlier ones opened.
type diagnosis struct {
	cfg      config.Config
	o        DoctorOptions
	dir      string
	company  bool
	shape    company.Shape
	endpoint string
	// store is set when the database answers with an up-to-date schema;
	// ring when the secret key loads.
	store   *relstore.Store
	ring    *secret.Ring
	closers []func()
}

func (d *diagnosis) close() {
	for i := len(d.closers) - 1; i >= 0; i-- {
		d.closers[i]()
	}
}

// database inspects the schema without migrating, and opens the store only
// when it is up to date (opening then changes nothing).
func (d *diagnosis) database(ctx context.Context) doctor.Result {
	f := doctor.DatabaseFacts{Engine: "SQLite", Where: filepath.Join(d.dir, sqlite.FileName)}
	var schema relstore.Schema
	var err error
	if d.cfg.DatabaseURL != "" {
		f.Engine, f.Where = "PostgreSQL", databaseName(d.cfg.DatabaseURL)
		schema, err = postgres.Inspect(ctx, d.cfg.DatabaseURL)
	} else {
		schema, err = sqlite.Inspect(ctx, d.dir)
		f.Missing = errors.Is(err, fs.ErrNotExist)
		if f.Missing {
			err = nil
		}
	}
	f.Current, f.Latest, f.Err = schema.Current, schema.Latest, err
	if err == nil && !f.Missing && !schema.Pending() && !schema.Newer() {
		store, closeStore, oerr := OpenStore(ctx, d.cfg, zap.NewNop(), DataDir(d.dir))
		if oerr != nil {
			f.Err = oerr
		} else {
			d.store = store
			d.closers = append(d.closers, closeStore)
		}
	}
	return doctor.Database(f)
}

// databaseName is a PostgreSQL URL without credentials: host:port/database.
func databaseName(dsn string) string {
	pc, err := pgconn.ParseConfig(dsn)
	if err != nil {
		return "(unparsable URL)"
	}
	return fmt.Sprintf("%s/%s", net.JoinHostPort(pc.Host, fmt.Sprint(pc.Port)), pc.Database)
}

// secretKey loads the keyring without generating a key file.
func (d *diagnosis) secretKey(ctx context.Context) doctor.Result {
	src := SecretSource(d.cfg.Secrets, DataDir(d.dir))
	if src.Local() {
		if _, err := os.Stat(filepath.Join(d.dir, secret.KeyFile)); errors.Is(err, fs.ErrNotExist) {
			if d.shape.Company && d.shape.Replicated() {
				return doctor.SecretKey(ctx, nil, d.shape, company.Mark{})
			}
			return doctor.Skipped("the key is generated in the data directory at first start")
		}
	}
	ring, err := secret.Load(src)
	if err != nil {
		return doctor.Failed("cannot load the secret key: "+err.Error(),
			"Set "+config.EnvSecretKeyFile+" to a file holding 32 random bytes, raw or base64 (openssl rand -base64 32).")
	}
	d.ring = ring
	mark := company.Mark{Name: company.KeyMark, Mine: ring.Fingerprint(), Older: ring.OlderFingerprints()}
	if d.store == nil {
		return doctor.SecretKey(ctx, nil, d.shape, mark)
	}
	return doctor.SecretKey(ctx, d.store.Fingerprints(), d.shape, mark)
}

// ca loads the CA without generating one.
func (d *diagnosis) ca(ctx context.Context) doctor.Result {
	f := doctor.CAFacts{Configured: d.cfg.CACert != "", Now: d.o.Now()}
	var a *ca.Authority
	switch {
	case f.Configured:
		a, f.Err = ca.LoadFiles(d.cfg.CACert, d.cfg.CAKey)
	default:
		_, errCert := os.Stat(filepath.Join(d.dir, ca.CertFile))
		_, errKey := os.Stat(filepath.Join(d.dir, ca.KeyFile))
		if errors.Is(errCert, fs.ErrNotExist) && errors.Is(errKey, fs.ErrNotExist) {
			f.Missing = true
			break
		}
		a, _, f.Err = ca.LoadOrCreate(d.dir, f.Now)
	}
	if a != nil {
		f.Cert, f.Fingerprint, f.Usable = a.Certificate(), a.Fingerprint(), a.Usable(doctor.CAHost, f.Now)
	}
	if d.store == nil {
		return doctor.CA(ctx, f, nil, d.shape)
	}
	return doctor.CA(ctx, f, d.store.Fingerprints(), d.shape)
}

// allowList probes the allow-list's host:port entries through the outbound
// policy, as a provider call would dial them.
func (d *diagnosis) allowList(ctx context.Context) doctor.Result {
	policy, err := egress.New(ctx, egressOptions(d.cfg, !d.company))
	if err != nil {
		return doctor.Failed(err.Error(), "Fix "+config.EnvEgressAllow+".")
	}
	return doctor.AllowList(ctx, d.cfg.EgressAllow, !d.company, func(ctx context.Context, hostport string) error {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		c, err := policy.DialContext(ctx, "tcp", hostport)
		if err != nil {
			return err
		}
		return c.Close()
	})
}

// providers is one connection test per enabled model, through the outbound
// policy and the provider client keygate serve uses.
func (d *diagnosis) providers(ctx context.Context) ([]doctor.Check, doctor.Result) {
	if d.store == nil || d.ring == nil {
		return nil, doctor.Skipped("needs the database and the secret key (see above)")
	}
	policy, err := egress.New(ctx, egressOptions(d.cfg, !d.company))
	if err != nil {
		return nil, doctor.Skipped("needs a valid outbound allow-list (see above)")
	}
	client := provider.New(provider.Options{
		Protocols: provider.Builtin(), HTTP: policy.HTTPClient(), Metadata: policy.InstanceMetadataClient(), Recorder: d.store.CallRecords(),
		Logger: zap.NewNop(), IdleTimeout: providerIdleTimeout,
	})
	deps := ControlDeps{Store: d.store, Box: d.ring, Auditor: company.NewAuditor(d.store.Audit(), run.SystemClock{}), Egress: policy}
	tester := appcontrol.NewTester(appcontrol.TesterOptions{Endpoints: newEndpoints(d.store, d.ring), Provider: client,
		Protocols: provider.Builtin(), Audit: deps.Auditor, Timeout: d.o.ProviderTimeout})
	list, err := NewModels(deps).List(ctx)
	if err != nil {
		return nil, doctor.Failed("cannot list the models: "+err.Error(), "Check the database (see above).")
	}
	var checks []doctor.Check
	for _, m := range list {
		name := "provider: " + m.Settings.DisplayName
		if !m.Config.Enabled {
			checks = append(checks, doctor.Check{Name: name, Run: func(context.Context) doctor.Result { return doctor.Skipped("disabled") }})
			continue
		}
		checks = append(checks, doctor.Check{Name: name, Run: func(ctx context.Context) doctor.Result {
			return doctor.Provider(tester.Test(ctx, m.Config.ID, nil))
		}})
	}
	if len(checks) == 0 {
		return nil, doctor.Warned("no model is configured", "Add a provider and a model in the console (Providers & Models).")
	}
	return checks, doctor.Result{}
}

// cursor reads Cursor's settings on this machine.
func (d *diagnosis) cursor(context.Context) doctor.Result {
	f := doctor.CursorFacts{Path: d.o.CursorSettings, Want: d.endpoint, Company: d.company}
	if d.cfg.ProxyListen == "" {
		f.Want = ""
	}
	if f.Path == "" {
		home, _ := os.UserHomeDir()
		p, err := setup.SettingsPath(runtime.GOOS, os.Getenv, home)
		if err != nil {
			return doctor.Skipped("cannot tell where Cursor keeps its settings here (" + err.Error() + "); pass --cursor-settings")
		}
		f.Path = p
	}
	f.Values, f.Err = setup.Current(f.Path)
	return doctor.Cursor(f)
}

// proxyEndpointOf is the proxy URL developers use, as NewProxyEndpoint
// works it out; when the certificate does not load (the proxy TLS check
// says so), the configured URL or the listen address stand in.
func proxyEndpointOf(cfg config.Config) string {
	if cfg.ProxyListen == "" {
		return ""
	}
	if ep, err := NewProxyEndpoint(cfg, zap.NewNop()); err == nil {
		return ep.URL
	}
	if cfg.ProxyURL != "" {
		return cfg.ProxyURL
	}
	scheme := "http"
	if cfg.ProxyTLSCert != "" {
		scheme = "https"
	}
	return scheme + "://" + cfg.ProxyListen
}
