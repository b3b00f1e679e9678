package doctor_test

import (
	"context"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io/fs"
	"net/netip"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/ca"
	"keygate/app/company"
	"keygate/app/config"
	"keygate/app/control"
	"keygate/app/doctor"
)

var _ = Describe("Doctor checks", func() {
	ctx := context.Background()
	replicated := company.Shape{Company: true, SharedStore: true, KeyConfigured: true, CAConfigured: true}

	Describe("configuration", func() {
		It("passes a valid configuration and fails one Validate refused, naming each problem", func() {
			Expect(doctor.Configuration(nil).Status).To(Equal(doctor.Pass))
			r := doctor.Configuration([]error{errors.New("egress allow-list: bad entry"), errors.New("proxy URL: no host")})
			Expect(r.Status).To(Equal(doctor.Fail))
			Expect(r.Detail).To(Equal("egress allow-list: bad entry; proxy URL: no host"))
			Expect(r.Fix).NotTo(BeEmpty())
		})
	})

	Describe("database", func() {
		DescribeTable("answers and is migrated",
			func(f doctor.DatabaseFacts, want doctor.Status, detail string) {
				r := doctor.Database(f)
				Expect(r.Status).To(Equal(want))
				Expect(r.Detail).To(ContainSubstring(detail))
				if want != doctor.Pass {
					Expect(r.Fix).NotTo(BeEmpty())
				}
			},
			Entry("good: up to date", doctor.DatabaseFacts{Engine: "PostgreSQL", Where: "db:5432/keygate", Current: 120, Latest: 120},
				doctor.Pass, "schema up to date (version 120)"),
			Entry("broken: unreachable", doctor.DatabaseFacts{Engine: "PostgreSQL", Where: "db:5432/keygate", Err: errors.New("connection refused")},
				doctor.Fail, "cannot be read: connection refused"),
			Entry("broken: migrated by a newer build", doctor.DatabaseFacts{Engine: "PostgreSQL", Where: "db:5432/keygate", Current: 130, Latest: 120},
				doctor.Fail, "migrated by a newer Keygate"),
			Entry("pending migrations only warn: serve applies them", doctor.DatabaseFacts{Engine: "PostgreSQL", Where: "db", Current: 111, Latest: 120},
				doctor.Warn, "at version 111, this build migrates it to 120"),
			Entry("an empty database warns", doctor.DatabaseFacts{Engine: "PostgreSQL", Where: "db", Latest: 120}, doctor.Warn, "no Keygate schema yet"),
			Entry("a laptop before its first start warns", doctor.DatabaseFacts{Engine: "SQLite", Where: "/d/keygate.db", Missing: true, Latest: 120},
				doctor.Warn, "does not exist yet"),
		)
	})

	Describe("secret key", func() {
		mine := company.Mark{Name: company.KeyMark, Mine: "aaaaaaaaaaaaaaaa0001"}

		It("passes the deployment's key, and a first one no replica recorded yet", func() {
			store := &fingerprints{}
			Expect(doctor.SecretKey(ctx, store, replicated, mine)).To(HaveField("Status", doctor.Pass))
			_, _ = store.RecordFingerprint(ctx, company.KeyMark, mine.Mine)
			r := doctor.SecretKey(ctx, store, replicated, mine)
			Expect(r.Status).To(Equal(doctor.Pass))
			Expect(r.Detail).To(ContainSubstring("matches the one the database records"))
			_, err := store.Fingerprint(ctx, company.KeyMark)
			Expect(err).NotTo(HaveOccurred())
		})

		It("fails another key than the recorded one, naming both fingerprints and the fix, and records nothing", func() {
			store := &fingerprints{}
			_, _ = store.RecordFingerprint(ctx, company.KeyMark, "bbbbbbbbbbbbbbbb0002")
			r := doctor.SecretKey(ctx, store, replicated, mine)
			Expect(r.Status).To(Equal(doctor.Fail))
			Expect(r.Detail).To(And(ContainSubstring("aaaaaaaaaaaaaaaa"), ContainSubstring("bbbbbbbbbbbbbbbb")))
			Expect(r.Fix).To(ContainSubstring(config.EnvSecretKeyFile))
			Expect(store.Fingerprint(ctx, company.KeyMark)).To(Equal("bbbbbbbbbbbbbbbb0002"))
		})

		It("fails a generated key where company replicas share the database", func() {
			r := doctor.SecretKey(ctx, &fingerprints{}, company.Shape{Company: true, SharedStore: true, CAConfigured: true}, mine)
			Expect(r.Status).To(Equal(doctor.Fail))
			Expect(r.Fix).To(And(ContainSubstring(config.EnvSecretKeyFile), ContainSubstring(config.EnvSingleReplica)))
		})

		It("skips without a usable database", func() {
			Expect(doctor.SecretKey(ctx, nil, replicated, mine).Status).To(Equal(doctor.Skip))
		})
	})

	Describe("CA", func() {
		good := func() doctor.CAFacts {
			a, _, err := ca.Generate(now, "company root")
			Expect(err).NotTo(HaveOccurred())
			return doctor.CAFacts{Configured: true, Cert: a.Certificate(), Usable: a.Usable(doctor.CAHost, now), Fingerprint: a.Fingerprint(), Now: now}
		}

		It("passes a name-constrained CA that signs for Cursor's hosts and is the deployment's", func() {
			f := good()
			store := &fingerprints{}
			_, _ = store.RecordFingerprint(ctx, company.CAMark, f.Fingerprint)
			r := doctor.CA(ctx, f, store, replicated)
			Expect(r.Status).To(Equal(doctor.Pass))
			Expect(r.Detail).To(ContainSubstring("name-constrained to cursor.sh"))
		})

		It("fails a CA without name constraints", func() {
			root := selfSigned(&x509.Certificate{Subject: pkix.Name{CommonName: "corp root"}, NotBefore: now.Add(-time.Hour), NotAfter: now.Add(10 * 365 * 24 * time.Hour),
				IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign})
			r := doctor.CA(ctx, doctor.CAFacts{Configured: true, Cert: root.cert, Fingerprint: "f", Now: now}, &fingerprints{}, replicated)
			Expect(r.Status).To(Equal(doctor.Fail))
			Expect(r.Detail).To(ContainSubstring("is not name-constrained"))
			Expect(r.Fix).To(ContainSubstring("cursor.sh"))
		})

		It("fails a CA that cannot sign for Cursor's hosts", func() {
			f := good()
			f.Usable = errors.New("x509: a root or intermediate certificate is not authorized for an extended key usage")
			Expect(doctor.CA(ctx, f, &fingerprints{}, replicated).Status).To(Equal(doctor.Fail))
		})

		It("fails another CA than the deployment's", func() {
			store := &fingerprints{}
			_, _ = store.RecordFingerprint(ctx, company.CAMark, "another")
			r := doctor.CA(ctx, good(), store, replicated)
			Expect(r.Status).To(Equal(doctor.Fail))
			Expect(r.Fix).To(ContainSubstring("keygate ca adopt"))
		})

		It("fails a generated CA where company replicas share the database, and one that does not load", func() {
			r := doctor.CA(ctx, doctor.CAFacts{Missing: true}, &fingerprints{}, company.Shape{Company: true, SharedStore: true, KeyConfigured: true})
			Expect(r.Status).To(Equal(doctor.Fail))
			Expect(r.Fix).To(ContainSubstring(config.EnvCACert))
			Expect(doctor.CA(ctx, doctor.CAFacts{Configured: true, Err: errors.New("not a CA")}, nil, replicated).Status).To(Equal(doctor.Fail))
		})

		It("warns of a CA that expires within a month", func() {
			f := good()
			f.Now = f.Cert.NotAfter.Add(-24 * time.Hour)
			Expect(doctor.CA(ctx, f, &fingerprints{}, company.Shape{}).Status).To(Equal(doctor.Warn))
		})
	})

	Describe("proxy TLS", func() {
		year := now.Add(365 * 24 * time.Hour)
		facts := func(c certificate, url string) doctor.ProxyFacts {
			return doctor.ProxyFacts{Listen: "0.0.0.0:8443", CertFile: c.certFile, KeyFile: c.keyFile, URL: url, Company: true, Now: now}
		}

		It("passes a certificate that names the host developers use", func() {
			r := doctor.ProxyTLS(facts(serverCert(year, "proxy.corp.example"), "https://proxy.corp.example:8443"))
			Expect(r.Status).To(Equal(doctor.Pass))
			Expect(r.Detail).To(ContainSubstring("certificate for proxy.corp.example"))
		})

		It("fails a certificate for another name, naming both", func() {
			r := doctor.ProxyTLS(facts(serverCert(year, "other.corp.example"), "https://proxy.corp.example:8443"))
			Expect(r.Status).To(Equal(doctor.Fail))
			Expect(r.Detail).To(Equal("the proxy's certificate names other.corp.example, not proxy.corp.example, the host developers use"))
			Expect(r.Fix).To(ContainSubstring(config.EnvProxyURL))
		})

		It("fails an expired certificate, and a key that does not match", func() {
			Expect(doctor.ProxyTLS(facts(serverCert(now.Add(-time.Minute), "proxy.corp.example"), "https://proxy.corp.example:8443")).Status).To(Equal(doctor.Fail))
			a, b := serverCert(year, "proxy.corp.example"), serverCert(year, "proxy.corp.example")
			f := facts(a, "https://proxy.corp.example:8443")
			f.KeyFile = b.keyFile
			r := doctor.ProxyTLS(f)
			Expect(r.Status).To(Equal(doctor.Fail))
			Expect(r.Detail).To(ContainSubstring("cannot load the proxy's certificate"))
		})

		It("fails a company proxy that would take tokens in clear text from the network, and passes a TLS terminator in front", func() {
			r := doctor.ProxyTLS(doctor.ProxyFacts{Listen: "0.0.0.0:8443", URL: "http://proxy.corp.example:8443", Company: true, Now: now})
			Expect(r.Status).To(Equal(doctor.Fail))
			Expect(r.Fix).To(And(ContainSubstring(config.EnvProxyTLSCert), ContainSubstring(config.EnvProxyURL)))
			Expect(doctor.ProxyTLS(doctor.ProxyFacts{Listen: "0.0.0.0:8080", URL: "https://proxy.corp.example", Company: true, Now: now}).Status).To(Equal(doctor.Pass))
		})

		It("passes a laptop's plain proxy on loopback and skips a proxy that is off", func() {
			Expect(doctor.ProxyTLS(doctor.ProxyFacts{Listen: "127.0.0.1:7879", URL: "http://127.0.0.1:7879", Now: now}).Status).To(Equal(doctor.Pass))
			Expect(doctor.ProxyTLS(doctor.ProxyFacts{}).Status).To(Equal(doctor.Skip))
		})
	})

	Describe("trusted proxies", func() {
		It("passes narrow ranges, fails what sign-in would refuse, and skips other sign-in modes", func() {
			narrow := []netip.Prefix{netip.MustParsePrefix("10.0.12.0/28")}
			Expect(doctor.TrustedProxies("header", narrow, nil)).To(HaveField("Detail", ContainSubstring("10.0.12.0/28 only")))
			r := doctor.TrustedProxies("header", []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0")}, errors.New("trusted proxy range 0.0.0.0/0 covers every address"))
			Expect(r.Status).To(Equal(doctor.Fail))
			Expect(r.Fix).To(ContainSubstring(config.EnvAuthTrustedProxies))
			Expect(doctor.TrustedProxies("oidc", nil, nil).Status).To(Equal(doctor.Skip))
		})
	})

	Describe("outbound allow-list", func() {
		up := func(context.Context, string) error { return nil }
		down := func(context.Context, string) error { return errors.New("connection refused") }

		It("passes entries that parse, probing those with a port", func() {
			probed := []string{}
			r := doctor.AllowList(ctx, []string{"10.20.0.0/16", "ollama.models.internal:11434", "*.corp"}, false, func(_ context.Context, a string) error {
				probed = append(probed, a)
				return nil
			})
			Expect(r.Status).To(Equal(doctor.Pass))
			Expect(probed).To(Equal([]string{"ollama.models.internal:11434"}))
		})

		It("fails an entry that does not parse", func() {
			r := doctor.AllowList(ctx, []string{"10.0.0.0/33"}, false, up)
			Expect(r.Status).To(Equal(doctor.Fail))
			Expect(r.Fix).To(ContainSubstring(config.EnvEgressAllow))
		})

		It("warns of a destination that does not answer", func() {
			r := doctor.AllowList(ctx, []string{"ollama.models.internal:11434"}, false, down)
			Expect(r.Status).To(Equal(doctor.Warn))
			Expect(r.Detail).To(ContainSubstring("not answering: ollama.models.internal:11434 (connection refused)"))
		})
	})

	Describe("metrics token", func() {
		It("passes a token, warns of a company deployment without one, and passes a laptop", func() {
			Expect(doctor.MetricsToken(true, "scrape-secret")).To(And(HaveField("Status", doctor.Pass), Not(HaveField("Detail", ContainSubstring("scrape-secret")))))
			r := doctor.MetricsToken(true, "")
			Expect(r.Status).To(Equal(doctor.Warn))
			Expect(r.Fix).To(ContainSubstring(config.EnvMetricsToken))
			Expect(doctor.MetricsToken(false, "").Status).To(Equal(doctor.Pass))
		})
	})

	Describe("provider", func() {
		It("passes a model that answered and fails one that did not, with the test's reason", func() {
			Expect(doctor.Provider(control.TestResult{OK: true, Duration: 1200 * time.Millisecond, TimeToFirstText: 300 * time.Millisecond}, nil)).
				To(HaveField("Detail", "answered in 1.2s (first text after 300ms)"))
			r := doctor.Provider(control.TestResult{Error: "the provider refused the API key (401)"}, nil)
			Expect(r.Status).To(Equal(doctor.Fail))
			Expect(r.Detail).To(Equal("the provider refused the API key (401)"))
			Expect(doctor.Provider(control.TestResult{}, errors.New("model not found")).Status).To(Equal(doctor.Fail))
		})
	})

	Describe("Cursor on this machine", func() {
		settings := func(proxy string, http2Off bool) map[string]string {
			v := map[string]string{"http.proxy": `"` + proxy + `"`, "http.proxySupport": `"on"`,
				"cursor.general.disableHttp2": "false", "http.experimental.systemCertificatesV2": "true"}
			if http2Off {
				v["cursor.general.disableHttp2"] = "true"
			}
			return v
		}
		want := "https://proxy.corp.example:8443"

		It("passes settings that point at the proxy, a gateway token in them included", func() {
			r := doctor.Cursor(doctor.CursorFacts{Path: "s.json", Values: settings("https://keygate:kg_secret@proxy.corp.example:8443", true), Want: want})
			Expect(r.Status).To(Equal(doctor.Pass))
			Expect(r.Detail).NotTo(ContainSubstring("kg_secret"))
		})

		It("fails settings that point elsewhere, never printing the token", func() {
			r := doctor.Cursor(doctor.CursorFacts{Path: "s.json", Values: settings("https://keygate:kg_secret@old-proxy.corp.example:8443", true), Want: want})
			Expect(r.Status).To(Equal(doctor.Fail))
			Expect(r.Detail).To(ContainSubstring("old-proxy.corp.example:8443"))
			Expect(r.Detail).NotTo(ContainSubstring("kg_secret"))
			Expect(r.Fix).To(ContainSubstring("keygate cursor setup --proxy " + want))
		})

		It("fails settings that leave HTTP/2 on, which ignores the proxy", func() {
			Expect(doctor.Cursor(doctor.CursorFacts{Values: settings(want, false), Want: want}).Status).To(Equal(doctor.Fail))
		})

		It("fails a laptop without Cursor settings, and skips a company server", func() {
			missing := &fs.PathError{Op: "open", Path: "s.json", Err: fs.ErrNotExist}
			Expect(doctor.Cursor(doctor.CursorFacts{Path: "s.json", Err: missing, Want: "http://127.0.0.1:7879"}).Status).To(Equal(doctor.Fail))
			Expect(doctor.Cursor(doctor.CursorFacts{Path: "s.json", Err: missing, Want: want, Company: true}).Status).To(Equal(doctor.Skip))
		})
	})
})

var _ = Describe("Doctor report", func() {
	It("runs the checks in order, expands those known only when they run, and fails a check that does not answer in time", func() {
		checks := []doctor.Check{
			{Name: "first", Run: func(context.Context) doctor.Result { return doctor.Ok("fine") }},
			{Name: "models", Expand: func(context.Context) ([]doctor.Check, doctor.Result) {
				return []doctor.Check{
					{Name: "provider: a", Run: func(context.Context) doctor.Result { return doctor.Failed("401", "check the key") }},
					{Name: "provider: b", Run: func(ctx context.Context) doctor.Result { <-ctx.Done(); return doctor.Ok("late") }},
				}, doctor.Result{}
			}},
			{Name: "none", Expand: func(context.Context) ([]doctor.Check, doctor.Result) { return nil, doctor.Skipped("nothing") }},
		}
		r := doctor.Run(context.Background(), checks, 50*time.Millisecond)
		var names []string
		for _, l := range r {
			names = append(names, l.Name+"="+l.Status.String())
		}
		Expect(names).To(Equal([]string{"first=ok", "provider: a=FAIL", "provider: b=FAIL", "none=skip"}))
		Expect(r[2].Detail).To(Equal("no answer within 50ms"))
		Expect(r.Failed()).To(Equal(2))

		var out strings.Builder
		Expect(r.Write(&out)).To(Succeed())
		Expect(out.String()).To(Equal(
			"[ok  ] first        fine\n" +
				"[FAIL] provider: a  401\n" +
				"                    fix: check the key\n" +
				"[FAIL] provider: b  no answer within 50ms\n" +
				"                    fix: Check that what it reaches answers, then run keygate doctor again.\n" +
				"[skip] none         nothing\n" +
				"\n4 checks: 1 ok, 2 failed, 0 warned, 1 skipped.\n"))
	})
})
