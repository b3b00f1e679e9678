package main_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
	"go.uber.org/zap"

	"keygate/adapters/secret"
	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/app/config"
	"keygate/domain/llm"
	"keygate/ports"
)

var _ = Describe("keygate secret rotate", func() {
	var dir string
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	// seed stores one provider whose key is sealed under the data-directory key.
	seed := func() {
		ctx := context.Background()
		ring, err := secret.Load(secret.Source{DataDir: dir})
		Expect(err).NotTo(HaveOccurred())
		sealed, _ := ring.Seal([]byte("sk-rotate-me"))
		db, err := sqlite.Open(ctx, dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		defer func() { Expect(db.Close()).To(Succeed()) }()
		Expect(sqlite.NewStore(db).Providers().PutProvider(ctx, ports.Provider{
			ID: "p1", Kind: llm.ProviderOpenAIResponses, Keys: []ports.ProviderKey{{ID: "k1", Sealed: sealed, Weight: 1, Enabled: true}}})).To(Succeed())
	}

	stored := func() []byte {
		db, err := sqlite.Open(context.Background(), dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		defer func() { Expect(db.Close()).To(Succeed()) }()
		p, err := sqlite.NewStore(db).Providers().Provider(context.Background(), "p1")
		Expect(err).NotTo(HaveOccurred())
		return p.Keys[0].Sealed
	}

	// recorded is the secret key fingerprint the store holds.
	recorded := func() string {
		db, err := sqlite.Open(context.Background(), dir, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		defer func() { Expect(db.Close()).To(Succeed()) }()
		fp, err := sqlite.NewStore(db).Fingerprints().Fingerprint(context.Background(), company.KeyMark)
		Expect(err).NotTo(HaveOccurred())
		return fp
	}

	It("re-seals the laptop's provider keys under a new data-directory key", func() {
		seed()
		oldKey, _ := os.ReadFile(filepath.Join(dir, secret.KeyFile))
		cmd := exec.Command(binary, "secret", "rotate", "--data-dir", dir)
		cmd.Env = append(os.Environ(), config.EnvSecretKey+"=", config.EnvSecretKeyFile+"=")
		session, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		Eventually(session, "20s").Should(gexec.Exit(0))
		Expect(string(session.Out.Contents())).To(ContainSubstring("Re-sealed 1 provider keys"))
		Expect(string(session.Out.Contents()) + string(session.Err.Contents())).NotTo(ContainSubstring("sk-rotate-me"))

		newKey, _ := os.ReadFile(filepath.Join(dir, secret.KeyFile))
		Expect(newKey).NotTo(Equal(oldKey))
		onlyNew, _ := secret.NewRing(newKey)
		Expect(onlyNew.Open(stored())).To(Equal([]byte("sk-rotate-me")))
		Expect(recorded()).To(Equal(secret.Fingerprint(newKey)), "the new key is the deployment's from now on")
	})

	It("records the configured key as the deployment's with `secret adopt`, after the recorded one was lost", func() {
		oldKey, newKey := secret.NewKey(), secret.NewKey()
		run := func(key []byte, args ...string) *gexec.Session {
			cmd := exec.Command(binary, append(args, "--data-dir", dir)...)
			cmd.Env = append(os.Environ(), config.EnvSecretKey+"="+secret.EncodeKey(key), config.EnvSecretKeyFile+"=")
			session, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
			Expect(err).NotTo(HaveOccurred())
			Eventually(session, "20s").Should(gexec.Exit())
			return session
		}
		Expect(run(oldKey, "secret", "adopt").ExitCode()).To(Equal(0))
		Expect(recorded()).To(Equal(secret.Fingerprint(oldKey)))
		session := run(newKey, "secret", "adopt")
		Expect(session.ExitCode()).To(Equal(0))
		Expect(string(session.Out.Contents())).To(ContainSubstring("was " + secret.Fingerprint(oldKey)[:16]))
		Expect(string(session.Out.Contents())).NotTo(ContainSubstring(secret.EncodeKey(newKey)))
		Expect(recorded()).To(Equal(secret.Fingerprint(newKey)))
	})

	It("refuses to guess where a company's new key goes", func() {
		cmd := exec.Command(binary, "secret", "rotate", "--data-dir", dir)
		cmd.Env = append(os.Environ(), config.EnvSecretKey+"="+secret.EncodeKey(secret.NewKey()))
		session, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		Eventually(session, "20s").Should(gexec.Exit(1))
		Expect(string(session.Err.Contents())).To(ContainSubstring("new key file"))
	})
})
