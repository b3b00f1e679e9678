package app_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/pgtest"
	"keygate/app"
	"keygate/app/config"
)

// untilStop is a turn that ends when the client sends a cancel action.
func untilStop() cursortest.Script {
	return (&cursortest.Recorder{}).Until(cursortest.IsCancel)
}

var _ = Describe("A replica told to stop", func() {
	It("turns /readyz unready first, starts no new turn, lets the running turn finish, then stops", func(ctx SpecContext) {
		pg, err := pgtest.New(ctx)
		Expect(err).NotTo(HaveOccurred(), "the drain spec needs a PostgreSQL server and never skips")
		DeferCleanup(pg.Close)
		dir := app.DataDir(GinkgoT().TempDir())
		cfg := config.Default()
		cfg.DataDir, cfg.DatabaseURL, cfg.Listen, cfg.DrainTimeout = string(dir), pg.DSN, "127.0.0.1:0", time.Minute
		log := zap.NewNop()
		store, closeStore, err := app.OpenStore(ctx, cfg, log, dir)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(closeStore)

		turns := cursor.New(cursortest.NewScriptedRunHandler(untilStop()), cursor.Options{Transport: cursortest.FastTimings()}, log)
		DeferCleanup(func() { _ = turns.Close(context.Background()) })
		mux := http.NewServeMux()
		for p, h := range turns.Routes() {
			mux.Handle(p, h)
		}
		cursorSrv := httptest.NewServer(mux)
		DeferCleanup(cursorSrv.Close)

		authority, err := app.OpenCA(cfg, dir)
		Expect(err).NotTo(HaveOccurred())
		settings, err := app.LoadSettings(ctx, store, app.NewAuditor(store))
		Expect(err).NotTo(HaveOccurred())
		drain := app.NewDrain()
		kg := app.NewKeygate(app.KeygateParts{
			Config: cfg, Logger: log, Retention: app.NewRetention(store, settings), Egress: laptopEgress(ctx, cfg), Drain: drain, Turns: turns,
			Server: app.NewHTTPServer(app.HTTPServerOptions{Config: cfg, Logger: log, DataDir: dir, Store: store, Authority: authority, Drain: drain}),
		})
		stop, cancel := context.WithCancel(context.Background())
		DeferCleanup(cancel)
		ready, done := make(chan net.Addr, 1), make(chan error, 1)
		go func() { done <- kg.Run(stop, func(a net.Addr) { ready <- a }) }()
		var addr net.Addr
		Eventually(ready).WithTimeout(10 * time.Second).Should(Receive(&addr))
		readyz := func() int {
			resp, err := http.Get("http://" + addr.String() + "/readyz")
			if err != nil {
				return 0
			}
			_ = resp.Body.Close()
			return resp.StatusCode
		}
		Expect(readyz()).To(Equal(http.StatusOK))

		By("a turn running when the stop comes")
		running := cursortest.NewClient(cursorSrv.URL, cursorSrv.Client(), "req-drain-running")
		s, err := running.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		Expect(running.Send(ctx, cursortest.RunRequest("conv-drain", "byok-model", "hello"))).To(Succeed())
		Expect(running.Send(ctx, cursortest.Heartbeat())).To(Succeed())

		cancel() // SIGTERM
		Eventually(readyz).WithTimeout(10 * time.Second).Should(Equal(http.StatusServiceUnavailable))
		Consistently(done).WithTimeout(300*time.Millisecond).ShouldNot(Receive(), "the running turn holds the stop")

		By("refusing a new turn with unavailable, so the client retries on another replica")
		fresh := cursortest.NewClient(cursorSrv.URL, cursorSrv.Client(), "req-drain-new")
		err = fresh.Send(ctx, cursortest.RunRequest("conv-drain-new", "byok-model", "hello"))
		Expect(err).To(HaveOccurred())
		Expect(connect.CodeOf(err)).To(Equal(connect.CodeUnavailable))

		By("stopping once the running turn finished")
		Expect(running.Send(ctx, cursortest.Cancel("done"))).To(Succeed())
		Eventually(done).WithTimeout(15 * time.Second).Should(Receive(BeNil()))
		Eventually(s.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
		Expect(s.EndError()).To(BeNil(), "the turn finished, it was not cut")
	}, SpecTimeout(90*time.Second))
})
