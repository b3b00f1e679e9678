package config_test

import (
	"io"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/config"
)

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

var _ = Describe("config.Load", func() {
	It("starts from loopback-only defaults with a data dir under the user's config dir", func() {
		cfg, err := config.Load(nil, env(nil), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.Listen).To(Equal("127.0.0.1:7878"))
		Expect(cfg.DataDir).To(HaveSuffix("keygate"))
		Expect(cfg.ShutdownTimeout.Seconds()).To(BeNumerically("==", 5))
	})

	It("takes the environment over the defaults", func() {
		cfg, err := config.Load(nil, env(map[string]string{
			config.EnvDataDir: "/srv/kg", config.EnvListen: "0.0.0.0:9000",
		}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.DataDir).To(Equal("/srv/kg"))
		Expect(cfg.Listen).To(Equal("0.0.0.0:9000"))
	})

	It("takes flags over the environment", func() {
		cfg, err := config.Load([]string{"--data-dir", "/flag", "--listen=:1234"},
			env(map[string]string{config.EnvDataDir: "/env"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.DataDir).To(Equal("/flag"))
		Expect(cfg.Listen).To(Equal(":1234"))
	})

	It("reports every invalid setting in one error", func() {
		_, err := config.Load([]string{"--listen", "nowhere", "--log-level", "loud", "--log-format", "xml"}, env(nil), io.Discard)
		Expect(err).To(MatchError(And(
			ContainSubstring(`listen address "nowhere"`),
			ContainSubstring(`log level "loud"`),
			ContainSubstring(`log format "xml"`),
		)))
	})

	It("rejects stray positional arguments", func() {
		_, err := config.Load([]string{"extra"}, env(nil), io.Discard)
		Expect(err).To(MatchError(ContainSubstring("unexpected arguments: extra")))
	})

	It("rejects an empty data dir from the environment only when no default remains", func() {
		cfg := config.Default()
		cfg.DataDir = "  "
		Expect(cfg.Validate()).To(MatchError(ContainSubstring("data dir is empty")))
	})

	It("reads single-replica from the environment as a boolean, the flag winning", func() {
		cfg, err := config.Load(nil, env(map[string]string{config.EnvSingleReplica: "true"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.SingleReplica).To(BeTrue())
		cfg, err = config.Load([]string{"--single-replica=false"}, env(map[string]string{config.EnvSingleReplica: "1"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.SingleReplica).To(BeFalse())
		_, err = config.Load(nil, env(map[string]string{config.EnvSingleReplica: "sometimes"}), io.Discard)
		Expect(err).To(MatchError(ContainSubstring(config.EnvSingleReplica)))
	})

	It("drains for 20 s by default, reads the drain timeout from the environment, the flag winning, and refuses a negative one", func() {
		cfg, err := config.Load(nil, env(nil), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.DrainTimeout).To(Equal(config.DefaultDrainTimeout))
		cfg, err = config.Load(nil, env(map[string]string{config.EnvDrainTimeout: "45s"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.DrainTimeout).To(Equal(45 * time.Second))
		cfg, err = config.Load([]string{"--drain-timeout=0"}, env(map[string]string{config.EnvDrainTimeout: "45s"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.DrainTimeout).To(BeZero())
		_, err = config.Load([]string{"--drain-timeout=-1s"}, env(nil), io.Discard)
		Expect(err).To(MatchError(ContainSubstring(config.EnvDrainTimeout)))
	})

	It("leases a run for 6 s by default, reads the relay lease from the environment, the flag winning, and refuses one out of bounds", func() {
		cfg, err := config.Load(nil, env(nil), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.RelayLease).To(Equal(config.DefaultRelayLease))
		cfg, err = config.Load(nil, env(map[string]string{config.EnvRelayLease: "3s"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.RelayLease).To(Equal(3 * time.Second))
		cfg, err = config.Load([]string{"--relay-lease=10s"}, env(map[string]string{config.EnvRelayLease: "3s"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.RelayLease).To(Equal(10 * time.Second))
		for _, bad := range []string{"--relay-lease=100ms", "--relay-lease=1h"} {
			_, err = config.Load([]string{bad}, env(nil), io.Discard)
			Expect(err).To(MatchError(ContainSubstring(config.EnvRelayLease)), bad)
		}
	})

	It("reads the budget policy file from the environment, the flag winning", func() {
		cfg, err := config.Load(nil, env(map[string]string{config.EnvBudgetsFile: "/etc/keygate/budgets.json"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.BudgetsFile).To(Equal("/etc/keygate/budgets.json"))
		cfg, err = config.Load([]string{"--budgets", "b.json"}, env(map[string]string{config.EnvBudgetsFile: "a.json"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.BudgetsFile).To(Equal("b.json"))
	})

	It("reads the metrics scrape token from the environment only", func() {
		cfg, err := config.Load(nil, env(map[string]string{config.EnvMetricsToken: "t0ken"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.MetricsToken).To(Equal("t0ken"))
		_, err = config.Load([]string{"--metrics-token", "x"}, env(nil), io.Discard)
		Expect(err).To(HaveOccurred(), "no flag: it would show in the process list")
	})

	It("leaves the HTTP/2 agent listener off unless asked, and takes it from the environment, the flag winning", func() {
		cfg, err := config.Load(nil, env(nil), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.AgentListen).To(BeEmpty())
		cfg, err = config.Load(nil, env(map[string]string{config.EnvAgentListen: "127.0.0.1:47321"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.AgentListen).To(Equal("127.0.0.1:47321"))
		cfg, err = config.Load([]string{"--agent-listen", "[::1]:0"}, env(map[string]string{config.EnvAgentListen: "127.0.0.1:47321"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.AgentListen).To(Equal("[::1]:0"))
	})

	It("accepts only a loopback IP address with a port for the agent listener, which carries no credentials", func() {
		for _, addr := range []string{"0.0.0.0:47321", ":47321", "192.168.1.10:47321", "localhost:47321", "127.0.0.1", "127.0.0.1:"} {
			_, err := config.Load([]string{"--agent-listen", addr}, env(nil), io.Discard)
			Expect(err).To(MatchError(ContainSubstring(`agent listen address "`+addr+`"`)), addr)
		}
		_, err := config.Load([]string{"--agent-listen", "10.0.0.1:1"}, env(nil), io.Discard)
		Expect(err).To(MatchError(ContainSubstring("must be a loopback IP address")))
		for _, addr := range []string{"127.0.0.1:47321", "127.0.0.1:0", "[::1]:47321"} {
			_, err := config.Load([]string{"--agent-listen", addr}, env(nil), io.Discard)
			Expect(err).NotTo(HaveOccurred(), addr)
		}
	})

	It("refuses the agent listener outside the local sign-in mode, in the validation keygate serve and keygate doctor share", func() {
		company := map[string]string{config.EnvAuthMode: "header", config.EnvAuthUserHeader: "X-Forwarded-User",
			config.EnvAuthTrustedProxies: "127.0.0.1/32", config.EnvAgentListen: "127.0.0.1:47321"}
		_, err := config.Load(nil, env(company), io.Discard)
		Expect(err).To(MatchError(And(ContainSubstring(`--agent-listen needs the local sign-in mode, not "header"`),
			ContainSubstring("leave "+config.EnvAgentListen+" empty"))))
		_, problems, err := config.Parse(nil, env(company), io.Discard, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(problems).To(ContainElement(MatchError(ContainSubstring("needs the local sign-in mode"))), "what keygate doctor reports")

		delete(company, config.EnvAgentListen)
		_, err = config.Load(nil, env(company), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		_, err = config.Load([]string{"--agent-listen", "127.0.0.1:47321"}, env(map[string]string{config.EnvAuthMode: "local"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
	})

	It("reads the outbound allow-list as a comma-separated list from the environment, the flag replacing it and repeatable", func() {
		cfg, err := config.Load(nil, env(nil), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.EgressAllow).To(BeEmpty(), "nothing beyond public addresses unless an operator says so")
		cfg, err = config.Load(nil, env(map[string]string{config.EnvEgressAllow: " 10.0.0.0/8, ollama.internal:11434 ,,"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.EgressAllow).To(Equal([]string{"10.0.0.0/8", "ollama.internal:11434"}))
		cfg, err = config.Load([]string{"--egress-allow", "192.168.1.20,*.models.corp", "--egress-allow=[fd00::7]:8000"},
			env(map[string]string{config.EnvEgressAllow: "10.0.0.0/8"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.EgressAllow).To(Equal([]string{"192.168.1.20", "*.models.corp", "[fd00::7]:8000"}))
	})

	It("rejects every malformed allow-list entry at start, naming it and the setting", func() {
		_, err := config.Load(nil, env(map[string]string{config.EnvEgressAllow: "http://10.0.0.7:8000,0.0.0.0/0,10.0.0.7"}), io.Discard)
		Expect(err).To(MatchError(And(
			ContainSubstring(config.EnvEgressAllow),
			ContainSubstring(`"http://10.0.0.7:8000"`),
			ContainSubstring(`"0.0.0.0/0"`),
		)))
		Expect(err.Error()).NotTo(ContainSubstring(`"10.0.0.7"`))
	})

	It("passes Cursor's own domains through a company proxy by default, and reads the list from the environment, the flag winning", func() {
		cfg, err := config.Load(nil, env(nil), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.ProxyPassthrough).To(Equal(config.DefaultProxyPassthrough))
		Expect(cfg.ProxyPassthrough).To(ContainElement("*.cursorapi.com"))

		cfg, err = config.Load(nil, env(map[string]string{config.EnvProxyPassthrough: "default, github.com ,*.githubusercontent.com"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.ProxyPassthrough).To(Equal(append(append([]string{}, config.DefaultProxyPassthrough...), "github.com", "*.githubusercontent.com")))

		cfg, err = config.Load([]string{"--proxy-passthrough", "git.corp.example:8443"}, env(map[string]string{config.EnvProxyPassthrough: "github.com"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.ProxyPassthrough).To(Equal([]string{"git.corp.example:8443"}))

		cfg, err = config.Load(nil, env(map[string]string{config.EnvProxyPassthrough: "none"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.ProxyPassthrough).To(BeEmpty())
	})

	It("bounds a member's proxy connections and tokens by default, read from the environment, the flag winning, and refuses a bound below 1", func() {
		cfg, err := config.Load(nil, env(nil), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect([]int{cfg.ProxyMaxConnsPerUser, cfg.ProxyMaxTokensPerUser, cfg.ProxyMaxTokens}).To(Equal(
			[]int{config.DefaultProxyMaxConnsPerUser, config.DefaultProxyMaxTokensPerUser, config.DefaultProxyMaxTokens}))

		cfg, err = config.Load([]string{"--proxy-max-conns-per-user", "64"}, env(map[string]string{
			config.EnvProxyMaxConnsPerUser: "32", config.EnvProxyMaxTokensPerUser: "2", config.EnvProxyMaxTokens: "500"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect([]int{cfg.ProxyMaxConnsPerUser, cfg.ProxyMaxTokensPerUser, cfg.ProxyMaxTokens}).To(Equal([]int{64, 2, 500}))

		_, err = config.Load(nil, env(map[string]string{config.EnvProxyMaxTokensPerUser: "0"}), io.Discard)
		Expect(err).To(MatchError(ContainSubstring(config.EnvProxyMaxTokensPerUser)))
		_, err = config.Load(nil, env(map[string]string{config.EnvProxyMaxConnsPerUser: "many"}), io.Discard)
		Expect(err).To(MatchError(ContainSubstring(config.EnvProxyMaxConnsPerUser)))
	})

	It("refuses a pass-through entry that is not a host pattern, naming it", func() {
		_, err := config.Load([]string{"--proxy-passthrough", "default,*,https://x.example"}, env(nil), io.Discard)
		Expect(err).To(MatchError(And(ContainSubstring("proxy pass-through list"), ContainSubstring(`"*"`), ContainSubstring(`"https://x.example"`))))
	})

	It("reads the proxy's TLS certificate and key from the environment and wants both", func() {
		cfg, err := config.Load(nil, env(map[string]string{config.EnvProxyTLSCert: "/run/p.crt", config.EnvProxyTLSKey: "/run/p.key"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.ProxyTLSCert).To(Equal("/run/p.crt"))
		Expect(cfg.ProxyTLSKey).To(Equal("/run/p.key"))
		_, err = config.Load([]string{"--proxy-tls-cert", "/run/p.crt"}, env(nil), io.Discard)
		Expect(err).To(MatchError(ContainSubstring("proxy TLS needs both")))
	})

	It("accepts a proxy URL of the form scheme://host[:port] only", func() {
		cfg, err := config.Load(nil, env(map[string]string{config.EnvProxyURL: "https://proxy.corp.example:8443"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.ProxyURL).To(Equal("https://proxy.corp.example:8443"))
		for _, bad := range []string{"proxy.corp.example:8443", "ftp://proxy.corp.example", "https://", "https://u:tok@proxy.corp.example", "https://proxy.corp.example/x", "https://proxy.corp.example?q=1"} {
			_, err := config.Load([]string{"--proxy-url", bad}, env(nil), io.Discard)
			Expect(err).To(MatchError(ContainSubstring(`proxy URL "`+bad+`"`)), bad)
		}
	})

	Describe("the agent's web tools", func() {
		It("offer no web search and fetch public pages by default", func() {
			cfg, err := config.Load(nil, env(nil), io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(cfg.WebSearch).To(BeEmpty())
			Expect(cfg.WebFetch).To(BeTrue())
			cfg, err = config.Load([]string{"--web-fetch=false"}, env(nil), io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(cfg.WebFetch).To(BeFalse())
			cfg, err = config.Load(nil, env(map[string]string{config.EnvWebFetch: "off"}), io.Discard)
			Expect(err).To(MatchError(ContainSubstring(config.EnvWebFetch)), "a boolean")
			cfg, err = config.Load(nil, env(map[string]string{config.EnvWebFetch: "false"}), io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(cfg.WebFetch).To(BeFalse())
		})

		It("search through a SearXNG instance, whose URL they need", func() {
			cfg, err := config.Load(nil, env(map[string]string{config.EnvWebSearch: "searxng", config.EnvWebSearchURL: "http://searxng:8080"}), io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(cfg.WebSearch).To(Equal(config.WebSearchSearXNG))
			Expect(cfg.WebSearchURL).To(Equal("http://searxng:8080"))
			_, err = config.Load([]string{"--web-search", "searxng"}, env(nil), io.Discard)
			Expect(err).To(MatchError(ContainSubstring(config.EnvWebSearchURL)))
			_, err = config.Load([]string{"--web-search", "searxng", "--web-search-url", "searxng:8080"}, env(nil), io.Discard)
			Expect(err).To(MatchError(ContainSubstring("must start with http://")))
		})

		It("search through Brave with a key from the environment or a file, never a flag", func() {
			cfg, err := config.Load([]string{"--web-search", "brave"}, env(map[string]string{config.EnvWebSearchKey: "BSA-secret"}), io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(cfg.WebSearchKey).To(Equal("BSA-secret"))
			cfg, err = config.Load([]string{"--web-search", "brave", "--web-search-key-file", "/run/secrets/brave"}, env(nil), io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(cfg.WebSearchKeyFile).To(Equal("/run/secrets/brave"))
			_, err = config.Load([]string{"--web-search", "brave"}, env(nil), io.Discard)
			Expect(err).To(MatchError(And(ContainSubstring(config.EnvWebSearchKey), ContainSubstring(config.EnvWebSearchKeyFile))))
			_, err = config.Load([]string{"--web-search-key", "BSA-secret"}, env(nil), io.Discard)
			Expect(err).To(MatchError(ContainSubstring("flag provided but not defined")))
			_, err = config.Load([]string{"--web-search", "brave", "--web-search-key-file", "/k"}, env(map[string]string{config.EnvWebSearchKey: "k"}), io.Discard)
			Expect(err).To(MatchError(ContainSubstring("not both")))
		})

		It("refuse an unknown backend, and a URL or key without a backend, naming the setting", func() {
			_, err := config.Load([]string{"--web-search", "google"}, env(nil), io.Discard)
			Expect(err).To(MatchError(ContainSubstring(`web search backend "google"`)))
			_, err = config.Load(nil, env(map[string]string{config.EnvWebSearchKey: "k"}), io.Discard)
			Expect(err).To(MatchError(ContainSubstring(config.EnvWebSearch)))
		})
	})

	It("bounds the wait between a failing provider's retries: a minute by default, 0 for none, at most ten minutes", func() {
		cfg, err := config.Load(nil, env(nil), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.RetryMaxWait).To(Equal(time.Minute))
		cfg, err = config.Load(nil, env(map[string]string{config.EnvRetryMaxWait: "90s"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.RetryMaxWait).To(Equal(90 * time.Second))
		cfg, err = config.Load([]string{"--retry-max-wait", "0"}, env(map[string]string{config.EnvRetryMaxWait: "90s"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.RetryMaxWait).To(BeZero(), "the flag wins and turns retries off")
		_, err = config.Load(nil, env(map[string]string{config.EnvRetryMaxWait: "a minute"}), io.Discard)
		Expect(err).To(MatchError(ContainSubstring(config.EnvRetryMaxWait)))
		_, err = config.Load([]string{"--retry-max-wait", "1h"}, env(nil), io.Discard)
		Expect(err).To(MatchError(ContainSubstring(config.EnvRetryMaxWait)))
	})

	It("reads how long appends and RunSSE wait for their request id's opening append, 30 s by default and bounded", func() {
		cfg, err := config.Load(nil, env(nil), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.OpeningWait).To(Equal(30 * time.Second))
		cfg, err = config.Load([]string{"--opening-wait", "2s"}, env(map[string]string{config.EnvOpeningWait: "10s"}), io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(cfg.OpeningWait).To(Equal(2*time.Second), "the flag wins")
		_, err = config.Load(nil, env(map[string]string{config.EnvOpeningWait: "0s"}), io.Discard)
		Expect(err).To(MatchError(ContainSubstring(config.EnvOpeningWait)))
		_, err = config.Load(nil, env(map[string]string{config.EnvOpeningWait: "1h"}), io.Discard)
		Expect(err).To(MatchError(ContainSubstring(config.EnvOpeningWait)))
	})
})
