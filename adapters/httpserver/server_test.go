package httpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/httpserver"
)

func get(h http.Handler, path string) (int, map[string]any) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	var body map[string]any
	Expect(json.Unmarshal(rec.Body.Bytes(), &body)).To(Succeed())
	return rec.Code, body
}

var _ = Describe("Server", func() {
	var failing error

	newServer := func(addr string, routes map[string]http.Handler) *httpserver.Server {
		return httpserver.New(zap.NewNop(), httpserver.Options{
			Addr:            addr,
			ShutdownTimeout: time.Second,
			Routes:          routes,
			Checks: []httpserver.Check{
				{Name: "store", Fn: func(context.Context) error { return failing }},
			},
		})
	}

	BeforeEach(func() { failing = nil })

	Describe("GET /readyz", func() {
		It("is 200 when every check passes", func() {
			code, body := get(newServer(":0", nil).Handler(), "/readyz")
			Expect(code).To(Equal(http.StatusOK))
			Expect(body).To(HaveKeyWithValue("status", "ready"))
		})

		It("is 503 and names the failing check and its reason", func() {
			failing = errors.New("database is locked")
			code, body := get(newServer(":0", nil).Handler(), "/readyz")
			Expect(code).To(Equal(http.StatusServiceUnavailable))
			Expect(body).To(HaveKeyWithValue("failed", HaveKeyWithValue("store", "database is locked")))
		})
	})

	Describe("GET /healthz", func() {
		It("stays 200 while a readiness check fails", func() {
			failing = errors.New("down")
			code, _ := get(newServer(":0", nil).Handler(), "/healthz")
			Expect(code).To(Equal(http.StatusOK))
		})
	})

	Describe("Run", func() {
		It("serves mounted routes and returns nil after a graceful shutdown", func(ctx SpecContext) {
			routes := map[string]http.Handler{"GET /hello": http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				_, _ = w.Write([]byte("hi"))
			})}
			s := newServer("127.0.0.1:0", routes)
			runCtx, cancel := context.WithCancel(ctx)
			addrs := make(chan net.Addr, 1)
			done := make(chan error, 1)
			go func() { done <- s.Run(runCtx, func(a net.Addr) { addrs <- a }) }()
			var addr net.Addr
			Eventually(addrs).Should(Receive(&addr))
			resp, err := http.Get("http://" + addr.String() + "/hello")
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			_ = resp.Body.Close()
			cancel()
			Eventually(done).Should(Receive(BeNil()))
		}, SpecTimeout(10*time.Second))

		It("fails with the address when it cannot listen", func(ctx SpecContext) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(ln.Close)
			err = newServer(ln.Addr().String(), nil).Run(ctx, nil)
			Expect(err).To(MatchError(ContainSubstring("listen on " + ln.Addr().String())))
		}, SpecTimeout(10*time.Second))
	})
})
