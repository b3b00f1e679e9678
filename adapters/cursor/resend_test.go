package cursor_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

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
