package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"keygate/domain/cursorcloud"
	"keygate/domain/destination"
	"keygate/domain/secretscan"
)

// Config is everything Keygate needs to start. Build it with [Load] (or
// [Default] and then [Config.Validate]); a Config that passed Validate is
// complete.
type Config struct {
	// DataDir holds the embedded database, the installation CA and secrets.
	// It is created (mode 0700) on first start.
	DataDir string
	// Listen is the address of the HTTP listener (console, control API,
	// health and the Cursor routes).
	Listen string
	// LogFormat is "console", "json" or "auto" (console on a terminal).
	LogFormat string
	// LogLevel is a zap level name: debug, info, warn, error.
	LogLevel string
	// ShutdownTimeout bounds graceful shutdown after SIGINT/SIGTERM.
	ShutdownTimeout time.Duration
	// DrainTimeout is how long a replica told to stop (SIGINT/SIGTERM)
	// drains before shutting down: /readyz answers unready at once, no new
	// turn starts, and running turns may finish for this long; those still
	// running then are handed over (their clients resume them on another
	// replica). 0 skips draining; so does a process without a database
	// URL (a laptop), which has no other replica.
	DrainTimeout time.Duration
	// DatabaseURL selects PostgreSQL (postgres://…); empty means the
	// embedded SQLite file in DataDir.
	DatabaseURL string
	// SingleReplica says this is the only Keygate process on its
	// PostgreSQL database. Otherwise several may share it behind a
	// round-robin load balancer: a BidiAppend that reaches another process
	// than its run's RunSSE is relayed through the database. Without a
	// database URL there is one process anyway.
	SingleReplica bool
	// RelayLease is how long a replica's ownership of a run (its lease in
	// the append relay) lasts without renewal; the owner renews every
	// third of it. A replica whose database session ends (killed, crashed)
	// hands its runs over at once; one that hangs with its session open
	// hands them over after at most this long.
	RelayLease time.Duration
	// ProxyListen is the address of the forward proxy Cursor is pointed at
	// (http.proxy); empty disables the proxy.
	ProxyListen string
	// ProxyPassthrough lists the hosts a company proxy tunnels besides the
	// Cursor hosts it intercepts (patterns of domain/destination: host,
	// *.domain, optional :port). Everything else is refused with 403. A
	// laptop proxy (local sign-in) tunnels every host and ignores it.
	ProxyPassthrough []string
	// ProxyMaxConnsPerUser bounds the connections one member holds open
	// through a company proxy at once (intercepted, tunnelled, keep-alive
	// and upgraded plain HTTP); ProxyMaxTokensPerUser the distinct gateway
	// tokens one member's connections use, and ProxyMaxTokens those of
	// everyone, on each replica. A connection over a limit is refused
	// (429, or 503 for the proxy's own) and closed.
	ProxyMaxConnsPerUser, ProxyMaxTokensPerUser, ProxyMaxTokens int
	// ProxyTLSCert and ProxyTLSKey name a certificate and key (PEM files)
	// the proxy serves TLS with, so that gateway tokens never cross the
	// network in clear text; empty serves plain HTTP.
	ProxyTLSCert, ProxyTLSKey string
	// ProxyURL is the proxy URL developers put into Cursor, when it is not
	// the listen address: typically https://… of a TCP-level TLS
	// terminator in front of a plain-HTTP proxy. Empty derives it from
	// ProxyListen and the TLS certificate.
	ProxyURL string
	// AgentListen is the address of the HTTP/2 agent listener (TLS, ALPN
	// h2) that GetServerConfig advertises as agentn_url, for Cursor clients
	// that keep HTTP/2 on and open AgentService/Run there; empty (the
	// default) leaves it off and clients use RunSSE + BidiAppend through
	// the proxy. It must be a loopback IP address: Cursor reaches it
	// directly, not through the proxy, so its requests carry no Keygate
	// credentials and are served as the local user. Only a laptop (local
	// sign-in mode, where every request is the local user) may open it;
	// Validate refuses it in any other mode (CheckAgentListenMode).
	AgentListen string
	// OutboundProxy is the proxy Keygate itself uses for upstream traffic:
	// a URL, "direct", or empty to follow HTTPS_PROXY/NO_PROXY.
	OutboundProxy string
	// EgressAllow opens destinations Keygate's outbound policy refuses by
	// default (loopback, link-local, private and other special-purpose
	// addresses): IPs, CIDR ranges, host names ("*.corp" for every name
	// under corp) and any of them with ":port" (domain/destination). A
	// self-hosted model on a private address needs it in company mode.
	// Keygate's own listeners and its database stay refused whatever it
	// says.
	EgressAllow []string
	// CACert and CAKey name a company CA (PEM files); empty means the
	// installation CA generated in DataDir.
	CACert, CAKey string
	// BudgetsFile names a JSON budget policy (per-user tokens per day, cost
	// per month, concurrent runs; see app/company.ParseBudgetPolicy),
	// imported into the database at start when it never held budget limits
	// (app.NewBudgets). Empty imports nothing: company mode keeps budgets
	// in the database regardless, and a laptop then has none.
	BudgetsFile string
	// MetricsToken, when set, is the bearer token GET /metrics requires
	// (Prometheus authorization.credentials); empty leaves it open with
	// local sign-in and closed (403) in company mode.
	MetricsToken string
	// WebSearch is the backend of the agent's WebSearch tool: "" (none, the
	// tool is not offered), WebSearchSearXNG (a SearXNG instance's JSON API
	// at WebSearchURL) or WebSearchBrave (the Brave Search API, by key).
	// Searches go through the outbound policy like provider calls: a
	// SearXNG on a private address needs EgressAllow in company mode.
	WebSearch string
	// WebSearchURL is the search backend's base URL: required for SearXNG;
	// for Brave it replaces https://api.search.brave.com (a gateway in
	// front of it).
	WebSearchURL string
	// WebSearchKey is the commercial backend's API key. It is a secret:
	// read from the environment only (never a flag, which would show in
	// the process list), or from the file WebSearchKeyFile names.
	WebSearchKey     string
	WebSearchKeyFile string
	// WebFetch offers the agent's WebFetch tool (on by default): Keygate
	// fetches a page the user approved and turns it into text. Fetches
	// reach public addresses only, whatever EgressAllow says.
	WebFetch bool
	// TabModel names the model or alias (its id or display name) that
	// serves Cursor Tab until the console saves another; empty leaves Tab
	// to Cursor's own service until then.
	TabModel string
	// CmdKModel and CommitModel name the models of inline edits (Cmd-K)
	// and of commit messages and branch names until the console saves
	// others; empty takes the default (the first published model; for
	// commit messages the user's last Agent model first).
	CmdKModel, CommitModel string
	// CursorCloud is what may reach Cursor's own service through Keygate:
	// "allow", "metadata" or "deny" (domain/cursorcloud); empty means the
	// mode's default (CursorCloudPolicy).
	CursorCloud string
	// SecretGuard is what happens to a model request that carries a
	// credential: "off", "redact" or "block" (domain/secretscan); empty
	// means the mode's default (SecretGuardMode).
	SecretGuard string
	// Auth is console sign-in: local unless it says otherwise.
	Auth Auth
	// Secrets name the keyring that seals provider keys and sessions.
	Secrets Secrets
	// Tokens bound the personal gateway tokens (company mode).
	Tokens Tokens
	// RetryMaxWait bounds how long one model call waits in all between its
	// retries when the provider fails (backoff with jitter, at least what
	// the provider's Retry-After asks); the user sees each retry in Cursor.
	// Zero turns retries off.
	RetryMaxWait time.Duration
	// OpeningWait bounds how long a BidiAppend or RunSSE waits for the
	// opening append of its request id, which the client may send after
	// them. An append on a request id that never opens, or on another
	// user's (each user's request ids are their own), is answered after it
	// with invalid_argument.
	OpeningWait time.Duration
	// TracesURL is the OTLP/HTTP URL spans are exported to (from
	// OpenTelemetry's standard variables, see EnvOTLPEndpoint); empty
	// exports none. The exporter reads OpenTelemetry's other standard
	// variables (headers, TLS, sampler) itself.
	TracesURL string
}

// The search backends of Config.WebSearch.
const (
	WebSearchSearXNG = "searxng"
	WebSearchBrave   = "brave"
)

// Environment variable names, one per flag.
const (
	EnvDataDir   = "KEYGATE_DATA_DIR"
	EnvListen    = "KEYGATE_LISTEN"
	EnvLogFormat = "KEYGATE_LOG_FORMAT"
	EnvLogLevel  = "KEYGATE_LOG_LEVEL"
	// EnvDatabaseURL is a secret-bearing value: it is never logged.
	EnvDatabaseURL   = "KEYGATE_DATABASE_URL"
	EnvSingleReplica = "KEYGATE_SINGLE_REPLICA"
	EnvDrainTimeout  = "KEYGATE_DRAIN_TIMEOUT"
	EnvRelayLease    = "KEYGATE_RELAY_LEASE"
	EnvProxyListen   = "KEYGATE_PROXY_LISTEN"
	// EnvProxyPassthrough is a comma-separated list; the word "default"
	// stands for DefaultProxyPassthrough and "none" for an empty list.
	EnvProxyPassthrough      = "KEYGATE_PROXY_PASSTHROUGH"
	EnvProxyMaxConnsPerUser  = "KEYGATE_PROXY_MAX_CONNS_PER_USER"
	EnvProxyMaxTokensPerUser = "KEYGATE_PROXY_MAX_TOKENS_PER_USER"
	EnvProxyMaxTokens        = "KEYGATE_PROXY_MAX_TOKENS"
	EnvProxyTLSCert          = "KEYGATE_PROXY_TLS_CERT"
	EnvProxyTLSKey           = "KEYGATE_PROXY_TLS_KEY"
	EnvProxyURL              = "KEYGATE_PROXY_URL"
	EnvAgentListen           = "KEYGATE_AGENT_LISTEN"
	EnvOutboundProxy         = "KEYGATE_OUTBOUND_PROXY"
	EnvEgressAllow           = "KEYGATE_EGRESS_ALLOW" // comma-separated
	EnvCACert                = "KEYGATE_CA_CERT"
	EnvCAKey                 = "KEYGATE_CA_KEY"
	EnvBudgetsFile           = "KEYGATE_BUDGETS_FILE"
	// EnvMetricsToken is a secret: it is never logged, and there is no flag
	// for it (a flag would show in the process list).
	EnvMetricsToken = "KEYGATE_METRICS_TOKEN"
	EnvWebSearch    = "KEYGATE_WEB_SEARCH"
	EnvWebSearchURL = "KEYGATE_WEB_SEARCH_URL"
	EnvTabModel     = "KEYGATE_TAB_MODEL"
	EnvCmdKModel    = "KEYGATE_CMDK_MODEL"
	EnvCommitModel  = "KEYGATE_COMMIT_MODEL"
	// EnvCursorCloud is allow, metadata or deny (see Config.CursorCloud).
	EnvCursorCloud = "KEYGATE_CURSOR_CLOUD"
	// EnvSecretGuard is off, redact or block (see Config.SecretGuard).
	EnvSecretGuard = "KEYGATE_SECRET_GUARD"
	// EnvWebSearchKey is a secret: it is never logged, and there is no flag
	// for it; EnvWebSearchKeyFile names a file holding it instead.
	EnvWebSearchKey     = "KEYGATE_WEB_SEARCH_KEY"
	EnvWebSearchKeyFile = "KEYGATE_WEB_SEARCH_KEY_FILE"
	EnvWebFetch         = "KEYGATE_WEB_FETCH"
	// EnvRetryMaxWait is a Go duration such as 60s or 2m; 0 turns retries off.
	EnvRetryMaxWait = "KEYGATE_RETRY_MAX_WAIT"
	// EnvOpeningWait is a Go duration such as 30s.
	EnvOpeningWait = "KEYGATE_OPENING_WAIT"
)

// DefaultOpeningWait is the default of Config.OpeningWait, and
// MaxOpeningWait the most it may be: appends that wait hold memory.
const (
	DefaultOpeningWait = 30 * time.Second
	MaxOpeningWait     = 5 * time.Minute
)

// DefaultRetryMaxWait is the default of Config.RetryMaxWait, and
// MaxRetryMaxWait the most it may be: a turn that waits longer for a
// provider has long lost its user.
const (
	DefaultRetryMaxWait = time.Minute
	MaxRetryMaxWait     = 10 * time.Minute
)

// DefaultListen and DefaultProxyListen are loopback only: a laptop install
// must not expose the gateway to the network unless the operator asks for it.
const (
	DefaultListen      = "127.0.0.1:7878"
	DefaultProxyListen = "127.0.0.1:7879"
)

// DefaultProxyPassthrough is what a Cursor editor reaches besides the
// *.cursor.sh hosts Keygate intercepts, kept to Cursor's own domains as
// Cursor's enterprise network documentation lists them: none of them is a
// host a member could receive data on. Anything else (GitHub, Open VSX,
// package registries) an administrator adds deliberately.
var DefaultProxyPassthrough = []string{
	// The extension marketplace (marketplace.cursorapi.com) and the hosts
	// it serves extension packages and icons from.
	"*.cursorapi.com",
	// Cursor's CDN: static assets of the editor and of its web views.
	"cursor-cdn.com", "*.cursor-cdn.com",
	// Editor and cursor-agent updates are downloaded from here (the update
	// check itself is on api2.cursor.sh, which is intercepted); the editor
	// opens docs and the changelog on cursor.com.
	"downloads.cursor.com", "cursor.com", "www.cursor.com",
}

// The defaults of the proxy's limits: an editor keeps a handful of
// connections, a few windows and agents a few dozen; one token per
// machine; and a recheck round (one Authenticate per distinct token every
// 5 s) that stays small.
const (
	DefaultProxyMaxConnsPerUser  = 256
	DefaultProxyMaxTokensPerUser = 8
	DefaultProxyMaxTokens        = 10_000
)

// DefaultDrainTimeout leaves a stopping replica 20 s for its running turns:
// with the 5 s shutdown after it, within the 30 s a container platform
// usually waits between SIGTERM and SIGKILL.
const DefaultDrainTimeout = 20 * time.Second

// DefaultRelayLease moves a hung replica's runs within 6 s; its owner
// renews every 2 s, which a loaded replica still manages.
const DefaultRelayLease = 6 * time.Second

// MinRelayLease and MaxRelayLease bound RelayLease: below a second a busy
// replica would lose its runs between renewals; above five minutes a hung
// one would keep its clients waiting that long.
const (
	MinRelayLease = time.Second
	MaxRelayLease = 5 * time.Minute
)

// Default returns the defaults. The data directory defaults to
// "<user config dir>/keygate" (for example ~/.config/keygate on Linux).
func Default() Config {
	dir := "keygate-data"
	if base, err := os.UserConfigDir(); err == nil {
		dir = filepath.Join(base, "keygate")
	}
	return Config{
		DataDir:               dir,
		Listen:                DefaultListen,
		LogFormat:             "auto",
		LogLevel:              "info",
		ShutdownTimeout:       5 * time.Second,
		DrainTimeout:          DefaultDrainTimeout,
		RelayLease:            DefaultRelayLease,
		ProxyListen:           DefaultProxyListen,
		ProxyPassthrough:      slices.Clone(DefaultProxyPassthrough),
		ProxyMaxConnsPerUser:  DefaultProxyMaxConnsPerUser,
		ProxyMaxTokensPerUser: DefaultProxyMaxTokensPerUser,
		ProxyMaxTokens:        DefaultProxyMaxTokens,
		WebFetch:              true,
		RetryMaxWait:          DefaultRetryMaxWait,
		OpeningWait:           DefaultOpeningWait,
		Auth:                  Auth{Mode: "local"},
		Tokens:                Tokens{MaxTTLDays: DefaultTokenMaxTTLDays, MaxPerUser: DefaultTokenMaxPerUser},
	}
}

// Load builds a Config from defaults, then the environment, then flags
// (flags win), and validates it. args excludes the program and subcommand
// names. getenv is usually os.Getenv; usage output goes to out.
func Load(args []string, getenv func(string) string, out io.Writer) (Config, error) {
	cfg, problems, err := Parse(args, getenv, out, nil)
	if err != nil {
		return Config{}, err
	}
	if err := errors.Join(problems...); err != nil {
		return Config{}, fmt.Errorf("invalid configuration: %w", err)
	}
	return cfg, nil
}

// Parse reads the configuration as Load does, but returns what Validate
// refuses as problems beside the configuration instead of failing, so that
// a caller can still look at a configuration that is not valid (keygate
// doctor reports each problem and checks the rest). err is set only when
// the arguments or the environment cannot be read at all. extra, when not
// nil, registers the caller's own flags on the same flag set.
func Parse(args []string, getenv func(string) string, out io.Writer, extra func(*flag.FlagSet)) (cfg Config, problems []error, err error) {
	cfg = Default()
	envString(getenv, EnvDataDir, &cfg.DataDir)
	envString(getenv, EnvListen, &cfg.Listen)
	envString(getenv, EnvLogFormat, &cfg.LogFormat)
	envString(getenv, EnvLogLevel, &cfg.LogLevel)
	envString(getenv, EnvDatabaseURL, &cfg.DatabaseURL)
	if err := envBool(getenv, EnvSingleReplica, &cfg.SingleReplica); err != nil {
		return Config{}, nil, err
	}
	envString(getenv, EnvProxyListen, &cfg.ProxyListen)
	passthrough := strings.Join(cfg.ProxyPassthrough, ",")
	envString(getenv, EnvProxyPassthrough, &passthrough)
	for _, n := range []struct {
		name string
		dst  *int
	}{
		{EnvProxyMaxConnsPerUser, &cfg.ProxyMaxConnsPerUser}, {EnvProxyMaxTokensPerUser, &cfg.ProxyMaxTokensPerUser},
		{EnvProxyMaxTokens, &cfg.ProxyMaxTokens},
	} {
		if err := envInt(getenv, n.name, n.dst); err != nil {
			return Config{}, nil, err
		}
	}
	envString(getenv, EnvProxyTLSCert, &cfg.ProxyTLSCert)
	envString(getenv, EnvProxyTLSKey, &cfg.ProxyTLSKey)
	envString(getenv, EnvProxyURL, &cfg.ProxyURL)
	envString(getenv, EnvAgentListen, &cfg.AgentListen)
	envString(getenv, EnvOutboundProxy, &cfg.OutboundProxy)
	if v := strings.TrimSpace(getenv(EnvEgressAllow)); v != "" {
		cfg.EgressAllow = splitList(v)
	}
	envString(getenv, EnvCACert, &cfg.CACert)
	envString(getenv, EnvCAKey, &cfg.CAKey)
	envString(getenv, EnvBudgetsFile, &cfg.BudgetsFile)
	envString(getenv, EnvMetricsToken, &cfg.MetricsToken)
	envString(getenv, EnvWebSearch, &cfg.WebSearch)
	envString(getenv, EnvWebSearchURL, &cfg.WebSearchURL)
	envString(getenv, EnvTabModel, &cfg.TabModel)
	envString(getenv, EnvCmdKModel, &cfg.CmdKModel)
	envString(getenv, EnvCommitModel, &cfg.CommitModel)
	envString(getenv, EnvCursorCloud, &cfg.CursorCloud)
	envString(getenv, EnvSecretGuard, &cfg.SecretGuard)
	envString(getenv, EnvWebSearchKey, &cfg.WebSearchKey)
	envString(getenv, EnvWebSearchKeyFile, &cfg.WebSearchKeyFile)
	if err := envBool(getenv, EnvWebFetch, &cfg.WebFetch); err != nil {
		return Config{}, nil, err
	}
	if err := envDuration(getenv, EnvRetryMaxWait, &cfg.RetryMaxWait); err != nil {
		return Config{}, nil, err
	}
	if err := envDuration(getenv, EnvRelayLease, &cfg.RelayLease); err != nil {
		return Config{}, nil, err
	}
	if err := envDuration(getenv, EnvDrainTimeout, &cfg.DrainTimeout); err != nil {
		return Config{}, nil, err
	}
	if err := envDuration(getenv, EnvOpeningWait, &cfg.OpeningWait); err != nil {
		return Config{}, nil, err
	}

	fs := flag.NewFlagSet("keygate serve", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "data directory (env "+EnvDataDir+")")
	fs.StringVar(&cfg.Listen, "listen", cfg.Listen, "HTTP listen address (env "+EnvListen+")")
	fs.StringVar(&cfg.LogFormat, "log-format", cfg.LogFormat, "console, json or auto (env "+EnvLogFormat+")")
	fs.StringVar(&cfg.LogLevel, "log-level", cfg.LogLevel, "debug, info, warn or error (env "+EnvLogLevel+")")
	fs.StringVar(&cfg.DatabaseURL, "database-url", cfg.DatabaseURL, "PostgreSQL URL; empty uses SQLite in the data dir (env "+EnvDatabaseURL+")")
	fs.BoolVar(&cfg.SingleReplica, "single-replica", cfg.SingleReplica, "the only Keygate process on its PostgreSQL database: no append relay between processes (env "+EnvSingleReplica+")")
	fs.StringVar(&cfg.ProxyListen, "proxy-listen", cfg.ProxyListen, "forward proxy address for Cursor; empty disables it (env "+EnvProxyListen+")")
	fs.StringVar(&passthrough, "proxy-passthrough", passthrough, "hosts a company proxy tunnels besides *.cursor.sh: comma-separated host, *.domain or host:port; \"default\" stands for the built-in list, \"none\" for nothing (env "+EnvProxyPassthrough+")")
	fs.IntVar(&cfg.ProxyMaxConnsPerUser, "proxy-max-conns-per-user", cfg.ProxyMaxConnsPerUser, "connections one member may hold open through the company proxy at once (env "+EnvProxyMaxConnsPerUser+")")
	fs.IntVar(&cfg.ProxyMaxTokensPerUser, "proxy-max-tokens-per-user", cfg.ProxyMaxTokensPerUser, "distinct gateway tokens one member's open proxy connections may use (env "+EnvProxyMaxTokensPerUser+")")
	fs.IntVar(&cfg.ProxyMaxTokens, "proxy-max-tokens", cfg.ProxyMaxTokens, "distinct gateway tokens the open proxy connections of everyone may use, per replica (env "+EnvProxyMaxTokens+")")
	fs.StringVar(&cfg.ProxyTLSCert, "proxy-tls-cert", cfg.ProxyTLSCert, "certificate (PEM) the proxy serves TLS with (env "+EnvProxyTLSCert+")")
	fs.StringVar(&cfg.ProxyTLSKey, "proxy-tls-key", cfg.ProxyTLSKey, "key (PEM) of --proxy-tls-cert (env "+EnvProxyTLSKey+")")
	fs.StringVar(&cfg.ProxyURL, "proxy-url", cfg.ProxyURL, "proxy URL developers put into Cursor, e.g. https://proxy.example.com:8443 behind a TLS terminator (env "+EnvProxyURL+")")
	fs.StringVar(&cfg.AgentListen, "agent-listen", cfg.AgentListen, "loopback address of the HTTP/2 agent listener for clients that keep HTTP/2 on, e.g. 127.0.0.1:47321; empty disables it (env "+EnvAgentListen+")")
	fs.StringVar(&cfg.OutboundProxy, "outbound-proxy", cfg.OutboundProxy, "proxy URL for upstream traffic, or direct (env "+EnvOutboundProxy+")")
	fs.Var(&listFlag{dst: &cfg.EgressAllow}, "egress-allow", "comma-separated destinations Keygate may reach although they are not public: IPs, CIDR ranges, host names, with or without :port; repeatable (env "+EnvEgressAllow+")")
	fs.StringVar(&cfg.CACert, "ca-cert", cfg.CACert, "company CA certificate (PEM) (env "+EnvCACert+")")
	fs.StringVar(&cfg.CAKey, "ca-key", cfg.CAKey, "company CA key (PEM) (env "+EnvCAKey+")")
	fs.StringVar(&cfg.BudgetsFile, "budgets", cfg.BudgetsFile, "JSON budget policy imported at start when the database holds no budget limits yet (the console edits them after); on a laptop it also turns budgets on (env "+EnvBudgetsFile+")")
	fs.StringVar(&cfg.WebSearch, "web-search", cfg.WebSearch, "backend of the agent's WebSearch tool: searxng or brave; empty offers no web search (env "+EnvWebSearch+")")
	fs.StringVar(&cfg.TabModel, "tab-model", cfg.TabModel, "the model or alias (display name or id) that serves Cursor Tab until the console saves another; empty leaves Tab to Cursor (env "+EnvTabModel+")")
	fs.StringVar(&cfg.CmdKModel, "cmdk-model", cfg.CmdKModel, "the model or alias (display name or id) of inline edits (Cmd-K) until the console saves another; empty takes the first published model (env "+EnvCmdKModel+")")
	fs.StringVar(&cfg.CommitModel, "commit-model", cfg.CommitModel, "the model or alias (display name or id) of commit messages and branch names until the console saves another; empty takes the user's last Agent model, else the first published (env "+EnvCommitModel+")")
	fs.StringVar(&cfg.CursorCloud, "cursor-cloud", cfg.CursorCloud, "what reaches Cursor's own service: allow (every request Keygate does not answer), metadata (account, config and flags only; no code, prompts or turns on Cursor's models) or deny (nothing); default allow on a laptop, metadata in company mode (env "+EnvCursorCloud+")")
	fs.StringVar(&cfg.SecretGuard, "secret-guard", cfg.SecretGuard, "what happens to a model request that carries a credential (gitleaks' rules): off, redact (each secret replaced by a marker naming its kind) or block (refused, the user told which kind); default redact in company mode, off on a laptop (env "+EnvSecretGuard+")")
	fs.StringVar(&cfg.WebSearchURL, "web-search-url", cfg.WebSearchURL, "base URL of the search backend: the SearXNG instance, or a gateway in front of Brave Search (env "+EnvWebSearchURL+")")
	fs.StringVar(&cfg.WebSearchKeyFile, "web-search-key-file", cfg.WebSearchKeyFile, "file holding the search backend's API key; or set "+EnvWebSearchKey+" (env "+EnvWebSearchKeyFile+")")
	fs.BoolVar(&cfg.WebFetch, "web-fetch", cfg.WebFetch, "offer the agent's WebFetch tool: pages the user approved, public addresses only (env "+EnvWebFetch+")")
	fs.DurationVar(&cfg.RelayLease, "relay-lease", cfg.RelayLease, "how long a replica's ownership of a run lasts without renewal (renewed every third of it): a hung replica's runs move to another after at most this long; a killed one's at once (env "+EnvRelayLease+")")
	fs.DurationVar(&cfg.DrainTimeout, "drain-timeout", cfg.DrainTimeout, "on SIGTERM, how long running turns may finish after /readyz turns unready and new turns go to other replicas; 0 skips draining (env "+EnvDrainTimeout+")")
	fs.DurationVar(&cfg.RetryMaxWait, "retry-max-wait", cfg.RetryMaxWait, "how long one model call waits in all between retries of a failing provider, e.g. 60s; 0 turns retries off (env "+EnvRetryMaxWait+")")
	fs.DurationVar(&cfg.OpeningWait, "opening-wait", cfg.OpeningWait, "how long an append or RunSSE waits for its request id's opening append, e.g. 30s (env "+EnvOpeningWait+")")
	finish := loadCompany(&cfg, getenv, fs)
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return Config{}, nil, err
	}
	if fs.NArg() > 0 {
		return Config{}, nil, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	cfg.ProxyPassthrough = ParsePassthrough(passthrough)
	return cfg, append(finish(), cfg.validate()...), nil
}

// ParsePassthrough splits a comma-separated pass-through list, expanding
// "default" to DefaultProxyPassthrough; "none" (alone) is the empty list.
// Entries are checked by Validate.
func ParsePassthrough(s string) []string {
	out := []string{}
	if strings.TrimSpace(s) == "none" {
		return out
	}
	for _, e := range strings.Split(s, ",") {
		switch e = strings.TrimSpace(e); e {
		case "":
		case "default":
			out = append(out, DefaultProxyPassthrough...)
		default:
			out = append(out, e)
		}
	}
	return out
}

func envString(getenv func(string) string, name string, dst *string) {
	if v := strings.TrimSpace(getenv(name)); v != "" {
		*dst = v
	}
}

// splitList reads a comma-separated list, dropping empty items.
func splitList(v string) []string {
	var out []string
	for item := range strings.SplitSeq(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// listFlag is a comma-separated, repeatable list flag: its first use
// replaces the value from the environment, later uses add to it.
type listFlag struct {
	dst *[]string
	set bool
}

func (f *listFlag) String() string {
	if f.dst == nil {
		return ""
	}
	return strings.Join(*f.dst, ",")
}

func (f *listFlag) Set(v string) error {
	if !f.set {
		*f.dst, f.set = nil, true
	}
	*f.dst = append(*f.dst, splitList(v)...)
	return nil
}

func envDuration(getenv func(string) string, name string, dst *time.Duration) error {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	*dst = d
	return nil
}

func envInt(getenv func(string) string, name string, dst *int) error {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	*dst = n
	return nil
}

func envBool(getenv func(string) string, name string, dst *bool) error {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	*dst = b
	return nil
}

// CursorCloudPolicy is the Cursor cloud policy in force: CursorCloud when
// set, else allow on a laptop (local sign-in) and metadata in company mode.
// An unparsable value (Validate reports it) decides as deny.
func (c Config) CursorCloudPolicy() cursorcloud.Policy {
	if strings.TrimSpace(c.CursorCloud) == "" {
		if c.Auth.Mode == "" || strings.EqualFold(c.Auth.Mode, "local") {
			return cursorcloud.Allow
		}
		return cursorcloud.Metadata
	}
	p, err := cursorcloud.ParsePolicy(c.CursorCloud)
	if err != nil {
		return cursorcloud.Deny
	}
	return p
}

// SecretGuardMode is the secret guard's mode in force: SecretGuard when
// set, else off on a laptop (local sign-in) and redact in company mode.
// An unparsable value (Validate reports it) decides as block.
func (c Config) SecretGuardMode() secretscan.Mode {
	if strings.TrimSpace(c.SecretGuard) == "" {
		if c.Auth.Mode == "" || strings.EqualFold(c.Auth.Mode, "local") {
			return secretscan.Off
		}
		return secretscan.Redact
	}
	m, err := secretscan.ParseMode(c.SecretGuard)
	if err != nil {
		return secretscan.Block
	}
	return m
}

// Validate reports every problem at once, so an operator fixes a bad
// configuration in one round.
func (c Config) Validate() error {
	if err := errors.Join(c.validate()...); err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	return nil
}

func (c Config) validate() []error {
	var errs []error
	if strings.TrimSpace(c.DataDir) == "" {
		errs = append(errs, errors.New("data dir is empty"))
	}
	if _, port, err := net.SplitHostPort(c.Listen); err != nil {
		errs = append(errs, fmt.Errorf("listen address %q: %w", c.Listen, err))
	} else if port == "" {
		errs = append(errs, fmt.Errorf("listen address %q has no port", c.Listen))
	}
	switch c.LogFormat {
	case "auto", "console", "json":
	default:
		errs = append(errs, fmt.Errorf("log format %q is not one of auto, console, json", c.LogFormat))
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("log level %q is not one of debug, info, warn, error", c.LogLevel))
	}
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		errs = append(errs, errors.New("database url must start with postgres:// or postgresql://"))
	}
	if c.ProxyListen != "" {
		if _, _, err := net.SplitHostPort(c.ProxyListen); err != nil {
			errs = append(errs, fmt.Errorf("proxy listen address %q: %w", c.ProxyListen, err))
		}
	}
	if strings.TrimSpace(c.CursorCloud) != "" {
		if _, err := cursorcloud.ParsePolicy(c.CursorCloud); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", EnvCursorCloud, err))
		}
	}
	if strings.TrimSpace(c.SecretGuard) != "" {
		if _, err := secretscan.ParseMode(c.SecretGuard); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", EnvSecretGuard, err))
		}
	}
	if _, err := destination.ParseAllowlist(c.ProxyPassthrough); err != nil {
		errs = append(errs, fmt.Errorf("proxy pass-through list: %w", err))
	}
	for _, n := range []struct {
		name string
		v    int
	}{
		{EnvProxyMaxConnsPerUser, c.ProxyMaxConnsPerUser}, {EnvProxyMaxTokensPerUser, c.ProxyMaxTokensPerUser},
		{EnvProxyMaxTokens, c.ProxyMaxTokens},
	} {
		if n.v < 1 {
			errs = append(errs, fmt.Errorf("%s is %d; want at least 1", n.name, n.v))
		}
	}
	if (c.ProxyTLSCert == "") != (c.ProxyTLSKey == "") {
		errs = append(errs, errors.New("proxy TLS needs both --proxy-tls-cert and --proxy-tls-key"))
	}
	if c.ProxyURL != "" {
		if err := proxyURL(c.ProxyURL); err != nil {
			errs = append(errs, fmt.Errorf("proxy URL %q: %w", c.ProxyURL, err))
		}
	}
	if c.AgentListen != "" {
		if err := loopbackAddr(c.AgentListen); err != nil {
			errs = append(errs, fmt.Errorf("agent listen address %q: %w", c.AgentListen, err))
		}
	}
	if err := c.CheckAgentListenMode(); err != nil {
		errs = append(errs, err)
	}
	if _, err := destination.ParseList(c.EgressAllow); err != nil {
		errs = append(errs, fmt.Errorf("egress allow-list (%s): %w", EnvEgressAllow, err))
	}
	if (c.CACert == "") != (c.CAKey == "") {
		errs = append(errs, errors.New("a company CA needs both --ca-cert and --ca-key"))
	}
	if c.ShutdownTimeout <= 0 {
		errs = append(errs, errors.New("shutdown timeout must be positive"))
	}
	if c.RelayLease < MinRelayLease || c.RelayLease > MaxRelayLease {
		errs = append(errs, fmt.Errorf("relay lease (%s) %s must be between %s and %s", EnvRelayLease, c.RelayLease, MinRelayLease, MaxRelayLease))
	}
	if c.DrainTimeout < 0 {
		errs = append(errs, fmt.Errorf("drain timeout (%s) must not be negative", EnvDrainTimeout))
	}
	if c.OpeningWait <= 0 || c.OpeningWait > MaxOpeningWait {
		errs = append(errs, fmt.Errorf("opening wait (%s) %s must be positive and at most %s", EnvOpeningWait, c.OpeningWait, MaxOpeningWait))
	}
	if c.RetryMaxWait < 0 || c.RetryMaxWait > MaxRetryMaxWait {
		errs = append(errs, fmt.Errorf("retry wait (%s) %s must be between 0 (no retries) and %s", EnvRetryMaxWait, c.RetryMaxWait, MaxRetryMaxWait))
	}
	errs = append(errs, c.validateWebSearch()...)
	return append(errs, c.validateCompany()...)
}

// validateWebSearch checks the search backend's settings together.
func (c Config) validateWebSearch() []error {
	var errs []error
	switch c.WebSearch {
	case "":
		if c.WebSearchURL != "" || c.WebSearchKey != "" || c.WebSearchKeyFile != "" {
			errs = append(errs, fmt.Errorf("web search URL or key set without a backend: set %s to %s or %s", EnvWebSearch, WebSearchSearXNG, WebSearchBrave))
		}
		return errs
	case WebSearchSearXNG:
		if c.WebSearchURL == "" {
			errs = append(errs, fmt.Errorf("web search %s needs the instance's URL (%s), for example http://searxng:8080", WebSearchSearXNG, EnvWebSearchURL))
		}
	case WebSearchBrave:
		if c.WebSearchKey == "" && c.WebSearchKeyFile == "" {
			errs = append(errs, fmt.Errorf("web search %s needs an API key: set %s, or %s to a file holding it", WebSearchBrave, EnvWebSearchKey, EnvWebSearchKeyFile))
		}
	default:
		errs = append(errs, fmt.Errorf("web search backend %q is not one of %s, %s (or empty for none)", c.WebSearch, WebSearchSearXNG, WebSearchBrave))
	}
	if c.WebSearchKey != "" && c.WebSearchKeyFile != "" {
		errs = append(errs, fmt.Errorf("set the web search key once: %s or %s, not both", EnvWebSearchKey, EnvWebSearchKeyFile))
	}
	if c.WebSearchURL != "" {
		if err := searchURL(c.WebSearchURL); err != nil {
			errs = append(errs, fmt.Errorf("web search URL (%s): %w", EnvWebSearchURL, err))
		}
	}
	return errs
}

// searchURL accepts http(s)://host[:port][/path] without credentials or a
// query: the backend's paths are appended to it.
func searchURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return errors.New("not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("must start with http:// or https://")
	case u.Hostname() == "":
		return errors.New("has no host")
	case u.User != nil:
		return errors.New("must not carry credentials")
	case u.RawQuery != "" || u.Fragment != "":
		return errors.New("must have no query or fragment")
	}
	return nil
}

// proxyURL accepts http:// or https:// with a host and nothing else: the
// token is added by each developer's set-up, and a path means nothing to
// a forward proxy.
func proxyURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("must start with https:// (or http://)")
	case u.Hostname() == "":
		return errors.New("has no host")
	case u.User != nil:
		return errors.New("must not carry credentials: each developer's set-up adds their own token")
	case (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return errors.New("must be scheme://host[:port] with no path or query")
	}
	return nil
}

// CheckAgentListenMode refuses the HTTP/2 agent listener outside the local
// sign-in mode: Cursor reaches it directly, not through the proxy, so its
// requests carry no gateway token and would all be served as one user.
// Validate (so keygate serve and keygate doctor) and the composition root
// that would open the listener share it.
func (c Config) CheckAgentListenMode() error {
	if c.AgentListen == "" || c.Auth.Mode == "" || c.Auth.Mode == "local" {
		return nil
	}
	return fmt.Errorf("--agent-listen needs the local sign-in mode, not %q: Cursor reaches the agent listener directly, not through the proxy, so its requests carry no gateway token and only a laptop, where every request is the local user, may serve it. "+
		"A company keeps Cursor on HTTP/1.1 through the proxy instead: leave %s empty, set cursor.general.disableHttp2 to true on every machine "+
		"together with http.proxy (keygate cursor setup writes both; push the same settings.json keys with your device management), "+
		"and Keygate's GetServerConfig tells clients to keep HTTP/2 off (README, Company deployment)", c.Auth.Mode, EnvAgentListen)
}

// loopbackAddr accepts host:port with a loopback IP literal: the agent
// listener's certificate and advertised URL name that IP, and no other
// machine may reach a listener that trusts every caller as the local user.
func loopbackAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if port == "" {
		return errors.New("has no port")
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return errors.New("must be a loopback IP address such as 127.0.0.1:47321 (the agent listener has no credentials of its own)")
	}
	return nil
}
