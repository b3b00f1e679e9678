package threatspec_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/pgtest"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/secret"
	"keygate/app"
	appcompany "keygate/app/company"
	"keygate/app/config"
)

// replicaConfig is a company replica on db with the given secret key and
// CA files, allowed to reach the fake provider.
func replicaConfig(dsn string, key []byte, caCert, caKey string, provider *providertest.Server) config.Config {
	cfg := companyConfig()
	cfg.DatabaseURL = dsn
	cfg.Secrets.Key = secret.EncodeKey(key)
	cfg.CACert, cfg.CAKey = caCert, caKey
	allowEgress(providerAddr(provider))(&cfg)
	return cfg
}

// initialize builds the graph of cfg and returns the error that refused
// it, cleaning up what it built otherwise.
func initialize(cfg config.Config) error {
	GinkgoHelper()
	Expect(cfg.Validate()).To(Succeed())
	_, cleanup, err := app.Initialize(context.Background(), cfg)
	if cleanup != nil {
		cleanup()
	}
	return err
}

// readyz is the replica's readiness answer: its status, a space, its body.
func (c *company) readyz() string {
	resp, err := http.Get(c.Base + "/readyz")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return fmt.Sprint(resp.StatusCode, " ", string(b))
}

var _ = Describe("Threat 12: replicas that do not share one secret key or one CA stall turns where no user sees why", func() {
	var (
		db       *pgtest.Database
		provider *providertest.Server
		key1     []byte
		key2     []byte
		caCert   string
		caKey    string
	)
	BeforeEach(func(ctx SpecContext) {
		var err error
		db, err = pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "these specs need a PostgreSQL server and never skip")
		DeferCleanup(db.Close)
		provider = providertest.NewServer()
		DeferCleanup(provider.Close)
		key1, key2 = secret.NewKey(), secret.NewKey()
		caCert, caKey = companyCA()
	})

	It("refuses to start company replicas on PostgreSQL whose key and CA each would generate in its data directory, naming the settings", func() {
		cfg := companyConfig()
		cfg.DatabaseURL = db.DSN
		err := initialize(cfg)
		Expect(err).To(MatchError(appcompany.ErrGeneratedKey))
		Expect(err).To(MatchError(appcompany.ErrGeneratedCA))
		Expect(err).To(MatchError(And(ContainSubstring(config.EnvSecretKeyFile), ContainSubstring(config.EnvCACert),
			ContainSubstring(config.EnvSingleReplica+"=true"))))
	})

	It("refuses to start a second replica with another secret key, naming both fingerprints and the fix, while the first serves on", func() {
		first := runCompany(replicaConfig(db.DSN, key1, caCert, caKey, provider))
		err := initialize(replicaConfig(db.DSN, key2, caCert, caKey, provider))
		Expect(err).To(MatchError(appcompany.ErrMismatch))
		Expect(err).To(MatchError(And(
			ContainSubstring("this replica's secret key is not the one the other replicas of this database use"),
			ContainSubstring(appcompany.Short(secret.Fingerprint(key2))), ContainSubstring(appcompany.Short(secret.Fingerprint(key1))),
			ContainSubstring(config.EnvSecretKeyFile))))
		Expect(err.Error()).NotTo(ContainSubstring(secret.EncodeKey(key2)), "the message names the key by fingerprint only")
		Expect(first.readyz()).To(HavePrefix("200 "))
		Expect(initialize(replicaConfig(db.DSN, key1, caCert, caKey, provider))).To(Succeed(), "a replica with the shared key starts")
	})

	It("refuses to start a second replica with another CA", func() {
		runCompany(replicaConfig(db.DSN, key1, caCert, caKey, provider))
		otherCert, otherKey := companyCA()
		err := initialize(replicaConfig(db.DSN, key1, otherCert, otherKey, provider))
		Expect(err).To(MatchError(appcompany.ErrMismatch))
		Expect(err).To(MatchError(And(ContainSubstring("this replica's CA is not the one the other replicas of this database use"),
			ContainSubstring(config.EnvCACert))))
	})

	It("starts a replica that carries a rotation's new key with the old one as previous, and from then refuses the old key alone", func() {
		runCompany(replicaConfig(db.DSN, key1, caCert, caKey, provider))
		rotated := replicaConfig(db.DSN, key2, caCert, caKey, provider)
		rotated.Secrets.PreviousKeys = []string{secret.EncodeKey(key1)}
		runCompany(rotated)
		Expect(initialize(replicaConfig(db.DSN, key1, caCert, caKey, provider))).To(MatchError(appcompany.ErrMismatch))
	})

	It("reports a replica unready, saying why, once an append relayed to it does not open with its key", func(ctx SpecContext) {
		By("running the old key's replica and, mid-rotation, one on the new key that still opens the old")
		old := runCompany(replicaConfig(db.DSN, key1, caCert, caKey, provider))
		rotated := replicaConfig(db.DSN, key2, caCert, caKey, provider)
		rotated.Secrets.PreviousKeys = []string{secret.EncodeKey(key1)}
		next := runCompany(rotated)
		Expect(old.readyz()).To(HavePrefix("200 "))

		By("configuring a model, so that the turn is Keygate's")
		model := next.createModel(provider)

		By("holding ada's RunSSE on the old replica while her appends reach the new one, sealed under the new key")
		_, token := old.newToken("ada@corp.test")
		c := cursortest.NewClient(cursorAPI, old.CursorHTTP(token), "req-rotating")
		c.AppendTo(cursorAPI, next.CursorHTTP(token))
		st, err := c.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(st.Close)
		Expect(c.Send(ctx, cursortest.RunRequest("conv-rotating", model, "Hi"))).To(Succeed(),
			"the client is told 200: the append is stored for the relay")

		By("the old replica reporting why it is unready")
		Eventually(old.readyz).WithTimeout(15 * time.Second).Should(And(HavePrefix("503 "), ContainSubstring(`"relay"`),
			ContainSubstring("did not open with this replica's secret key"), ContainSubstring("do not share one secret key")))
		Expect(next.readyz()).To(HavePrefix("200 "), "the replica that opens both keys stays ready")
	}, SpecTimeout(60*time.Second))
})
