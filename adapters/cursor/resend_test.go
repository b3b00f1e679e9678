package cursor_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
)

var _ = Describe("The simulated Cursor client's append retries", func() {
	It("sends an append again when its connection was reset before any answer, which Connect reports as canceled", func() {
		var calls atomic.Int32
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 {
				// A replica killed, or a balancer dropping the connection:
				// the client reads a reset, not an answer.
				conn, _, err := http.NewResponseController(w).Hijack()
				Expect(err).NotTo(HaveOccurred())
				Expect(conn.(*net.TCPConn).SetLinger(0)).To(Succeed())
				_ = conn.Close()
				return
			}
			w.Header().Set("Content-Type", "application/proto")
			w.WriteHeader(http.StatusOK)
		}))
		DeferCleanup(ts.Close)
		c := cursortest.NewClient(ts.URL, ts.Client(), newRequestID())
		c.AppendAttempts = 3
		Expect(c.Send(context.Background(), cursortest.RunRequest("conv-reset", "byok-model", "hello"))).To(Succeed())
		Expect(calls.Load()).To(BeEquivalentTo(2))
		Expect(c.Resent()).To(BeEquivalentTo(1))
	})
})

var _ = Describe("A turn whose client lost a numbered append", func() {
	It("completes once the gap wait is over: the replies after the lost seqno are released instead of waiting for it for good", func(ctx SpecContext) {
		ws := cursortest.NewWorkspace(GinkgoT().TempDir())
		Expect(os.WriteFile(filepath.Join(ws.Root, "README.md"), []byte("# Keygate"), 0o644)).To(Succeed())
		timings := cursortest.FastTimings()
		timings.GapWait = 500 * time.Millisecond
		env := cursortest.Serve(cursortest.NewScriptedRunHandler(cursortest.ReadBack("README.md")), cursor.Options{Transport: timings})
		DeferCleanup(env.Close)
		c := env.Client(newRequestID())
		c.OnMessage = ws.Handle
		Expect(c.Send(ctx, cursortest.RunRequest("conv-lost", "byok-model", "what is in README.md?"))).To(Succeed())
		// Seqno 1 went down with a cut connection; the answer to the read
		// (made once the stream is open) is numbered 2.
		c.Lose(1)
		start := time.Now()
		s, err := c.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(s.Close)
		Eventually(s.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
		Expect(s.EndError()).To(BeNil())
		Expect(s.Texts()).To(Equal([]string{"# Keygate"}))
		Expect(time.Since(start)).To(BeNumerically(">=", timings.GapWait), "the answer waited for seqno 1 first")
	})
})
