package main_test

import (
	"crypto/rand"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/pgtest"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/secret"
	"keygate/app/config"
)

var _ = Describe("keygate serve as two replicas on one PostgreSQL database", func() {
	It("completes a Cursor turn with a tool round whose RunSSE goes through one process and every BidiAppend through the other", func(ctx SpecContext) {
		db, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "this spec needs a PostgreSQL server and never skips")
		DeferCleanup(db.Close)
		provider := providertest.NewServer()
		DeferCleanup(provider.Close)

		By("starting two processes on the database with one secret key, as replicas behind a load balancer are")
		key := make([]byte, secret.KeySize)
		_, _ = rand.Read(key)
		GinkgoT().Setenv(config.EnvSecretKey, secret.EncodeKey(key))
		type process struct{ base, proxy, dataDir string }
		var procs [2]process
		for i := range procs {
			dataDir := filepath.Join(GinkgoT().TempDir(), "data")
			session, base := start(dataDir, "--database-url", db.DSN)
			Eventually(func() int { return status(base + "/readyz") }, 10*time.Second).Should(Equal(http.StatusOK))
			m := proxyListening.FindSubmatch(session.Err.Contents())
			Expect(m).NotTo(BeNil(), "the proxy logs its address")
			Expect(string(session.Err.Contents())).To(ContainSubstring("append relay between replicas"))
			procs[i] = process{base: base, proxy: string(m[1]), dataDir: dataDir}
		}

		By("configuring the model through the second process's control API")
		created := createFakeModel(procs[1].base, provider.URL, "sk-replicas-0123456789")
		scriptReadTurn(provider)

		By("sending the RunSSE through the first process's proxy and every BidiAppend through the second's")
		ws := notesWorkspace()
		c := cursortest.NewClient("https://api2.cursor.sh", cursorClient(procs[0].proxy, procs[0].dataDir), "req-replicas-1")
		c.AppendTo("https://api2.cursor.sh", cursorClient(procs[1].proxy, procs[1].dataDir))
		c.OnMessage = ws.Handle
		st, err := c.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(st.Close)
		Expect(c.Send(ctx, cursortest.RunRequest("conv-replicas", created.Model.ID, "What is in notes.txt?"))).To(Succeed())
		Eventually(st.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
		Expect(st.ReadError()).NotTo(HaveOccurred())
		Expect(st.EndError()).To(BeNil())

		By("running both model cycles and the client's tool between them")
		Expect(strings.Join(st.Texts(), "")).To(Equal("Let me read it.It says hello."))
		Expect(ws.Execs()).To(HaveLen(1))
		reqs := provider.Requests()
		Expect(reqs).To(HaveLen(2))
		Expect(string(reqs[1].Body)).To(ContainSubstring("hello from the workspace"))
	}, SpecTimeout(90*time.Second))
})
