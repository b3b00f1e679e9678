package main_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/pgtest"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/secret"
	"keygate/app/config"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// process is one keygate serve of a group of replicas.
type process struct {
	session              *gexec.Session
	base, proxy, dataDir string
}

// startReplicas starts two processes on the database with one secret key,
// as replicas behind a load balancer are, and waits until both are ready.
func startReplicas(dsn string) [2]process {
	GinkgoT().Setenv(config.EnvSecretKey, secret.EncodeKey(secret.NewKey()))
	var procs [2]process
	for i := range procs {
		dataDir := filepath.Join(GinkgoT().TempDir(), "data")
		session, base := start(dataDir, "--database-url", dsn)
		Eventually(func() int { return status(base + "/readyz") }, 10*time.Second).Should(Equal(http.StatusOK))
		// The proxy opens its listener beside the console's, not before it.
		Eventually(session.Err.Contents).Should(MatchRegexp(proxyListening.String()))
		m := proxyListening.FindSubmatch(session.Err.Contents())
		Expect(m).NotTo(BeNil(), "the proxy logs its address")
		Expect(string(session.Err.Contents())).To(ContainSubstring("append relay between replicas"))
		procs[i] = process{session: session, base: base, proxy: string(m[1]), dataDir: dataDir}
	}
	return procs
}

// split is a client whose RunSSE goes through the first process's proxy
// and every BidiAppend through the second's, with its stream open.
func split(ctx context.Context, procs [2]process, ws *cursortest.Workspace, requestID string) (*cursortest.Client, *cursortest.Stream) {
	c := cursortest.NewClient("https://api2.cursor.sh", cursorClient(procs[0].proxy, procs[0].dataDir), requestID)
	c.AppendTo("https://api2.cursor.sh", cursorClient(procs[1].proxy, procs[1].dataDir))
	c.OnMessage = ws.Handle
	st, err := c.Subscribe(ctx)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(st.Close)
	return c, st
}

var _ = Describe("keygate serve as two replicas on one PostgreSQL database", func() {
	It("completes a Cursor turn with a tool round whose RunSSE goes through one process and every BidiAppend through the other", func(ctx SpecContext) {
		db, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "this spec needs a PostgreSQL server and never skips")
		DeferCleanup(db.Close)
		provider := providertest.NewServer()
		DeferCleanup(provider.Close)

		By("starting two processes on the database with one secret key, as replicas behind a load balancer are")
		procs := startReplicas(db.DSN)

		By("configuring the model through the second process's control API")
		created := createFakeModel(procs[1].base, provider.URL, "sk-replicas-0123456789")
		scriptReadTurn(provider)

		By("sending the RunSSE through the first process's proxy and every BidiAppend through the second's")
		ws := notesWorkspace()
		c, st := split(ctx, procs, ws, "req-replicas-1")
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

	It("resumes a turn on the other process after the one running it was killed, without asking the model again for the cycle it finished, whatever checkpoint the client got", func(ctx SpecContext) {
		db, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "this spec needs a PostgreSQL server and never skips")
		DeferCleanup(db.Close)
		provider := providertest.NewServer()
		DeferCleanup(provider.Close)
		procs := startReplicas(db.DSN)
		created := createFakeModel(procs[1].base, provider.URL, "sk-replicas-0123456789")
		scriptReadTurn(provider)

		By("running the turn on the first process until its model cycle asked the client to read a file")
		ws := notesWorkspace()
		release := make(chan struct{})
		DeferCleanup(func() { close(release) })
		var held atomic.Bool
		ws.Hold = func(*agentv1.ExecServerMessage) <-chan struct{} {
			if held.CompareAndSwap(false, true) {
				return release // the client is still reading when the process dies
			}
			return nil
		}
		c, st := split(ctx, procs, ws, "req-killed")
		Expect(c.Send(ctx, cursortest.RunRequest("conv-killed", created.Model.ID, "What is in notes.txt?"))).To(Succeed())
		Eventually(held.Load).WithTimeout(20 * time.Second).Should(BeTrue())
		Expect(provider.Requests()).To(HaveLen(1))

		By("killing the first process (SIGKILL): its stream breaks")
		procs[0].session.Kill().Wait(10 * time.Second)
		Eventually(st.Done()).WithTimeout(10 * time.Second).Should(BeClosed())

		By("resuming through the second process, as Cursor does after a broken stream")
		resume := c.WithRequestID("req-resumed")
		resume.Rebind("https://api2.cursor.sh", cursorClient(procs[1].proxy, procs[1].dataDir))
		rs, err := resume.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(rs.Close)
		Expect(resume.Send(ctx, cursortest.Request("conv-killed", created.Model.ID, cursortest.ResumeAction(), c.Checkpoint()))).To(Succeed())
		Eventually(rs.Done()).WithTimeout(30 * time.Second).Should(BeClosed())
		Expect(rs.ReadError()).NotTo(HaveOccurred())
		Expect(rs.EndError()).To(BeNil())
		Expect(strings.Join(rs.Texts(), "")).To(Equal("It says hello."))
		reqs := provider.Requests()
		Expect(reqs).To(HaveLen(2), "the finished cycle was not asked again")
		Expect(string(reqs[1].Body)).To(ContainSubstring("hello from the workspace"))
	}, SpecTimeout(120*time.Second))

	It("refuses to start a second process whose secret key differs, exiting non-zero with a message naming both fingerprints", func(ctx SpecContext) {
		db, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "this spec needs a PostgreSQL server and never skips")
		DeferCleanup(db.Close)
		keyFile := func(key []byte) string {
			path := filepath.Join(GinkgoT().TempDir(), "secret.key")
			Expect(os.WriteFile(path, []byte(secret.EncodeKey(key)), 0o600)).To(Succeed())
			return path
		}
		key1, key2 := secret.NewKey(), secret.NewKey()

		By("starting the first process with one key")
		_, base := start(filepath.Join(GinkgoT().TempDir(), "data"), "--database-url", db.DSN, "--secret-key-file", keyFile(key1))
		Eventually(func() int { return status(base + "/readyz") }, 10*time.Second).Should(Equal(http.StatusOK))

		By("starting the second with another")
		cmd := exec.Command(binary, "serve", "--listen", "127.0.0.1:0", "--proxy-listen", "127.0.0.1:0", "--log-format", "json",
			"--data-dir", filepath.Join(GinkgoT().TempDir(), "data"), "--database-url", db.DSN, "--secret-key-file", keyFile(key2))
		session, err := gexec.Start(cmd, GinkgoWriter, GinkgoWriter)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func() { session.Kill().Wait() })
		Eventually(session, 20*time.Second).Should(gexec.Exit(1))
		msg := string(session.Err.Contents())
		Expect(msg).To(ContainSubstring("keygate: start: this replica's secret key is not the one the other replicas of this database use"))
		Expect(msg).To(ContainSubstring(secret.Fingerprint(key2)[:16]))
		Expect(msg).To(ContainSubstring(secret.Fingerprint(key1)[:16]))
		Expect(msg).To(ContainSubstring(config.EnvSecretKeyFile))
		Expect(status(base+"/readyz")).To(Equal(http.StatusOK), "the first process serves on")
	}, SpecTimeout(60*time.Second))
})
