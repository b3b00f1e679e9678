package cursor_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/frame"
	"keygate/adapters/cursor/transport"
	"keygate/adapters/pgtest"
	"keygate/adapters/postgres"
	"keygate/domain/identity"
	"keygate/gen/cursor/agent/v1/agentv1connect"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

// gzipOfZeros is a gzip member of mib MiB of zeros, about a thousandth of
// that in size.
func gzipOfZeros(mib int) []byte {
	var member bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&member, gzip.BestCompression)
	zeros := make([]byte, 1<<20)
	for range mib {
		_, _ = zw.Write(zeros)
	}
	_ = zw.Close()
	return member.Bytes()
}

var (
	// gzipBomb is about 1 MiB of gzip that inflates to 1 GiB (sixteen
	// members; a gzip reader reads concatenated members as one).
	gzipBomb = bytes.Repeat(gzipOfZeros(64), 16)
	// smallBomb is about 16 KiB of gzip that inflates to 16 MiB: it fits
	// the smallest route's body limit, so only its inflation is refused.
	smallBomb = gzipOfZeros(16)
)

// serveAs starts the adapter behind a server that takes the caller's
// identity from the X-Test-User header, as the proxy would from the
// caller's gateway token.
func serveAs(handler transport.RunHandler, opts cursor.Options) string {
	srv := cursor.New(handler, opts, zap.NewNop())
	mux := http.NewServeMux()
	for p, route := range srv.Routes() {
		mux.Handle(p, route)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u := r.Header.Get(testUser); u != "" {
			r = r.WithContext(identity.NewContext(r.Context(), identity.Identity{UserID: u}))
		}
		mux.ServeHTTP(w, r)
	}))
	DeferCleanup(ts.Close)
	DeferCleanup(func() {
		closing, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Close(closing)
	})
	return ts.URL
}

// bigFollowUp is a follow-up message of 20 KiB.
var bigFollowUp = cursortest.FollowUp(strings.Repeat("x", 20<<10))

var _ = Describe("Bounds on what a Cursor client sends", func() {
	Describe("gzip bombs", func() {
		var env *cursortest.Env

		BeforeEach(func() {
			env = cursortest.Serve(cursortest.NewScriptedRunHandler(nil), cursor.Options{Transport: cursortest.FastTimings()})
			DeferCleanup(env.Close)
		})

		// post sends body to path as the client would label it and returns
		// the answer's body (a Connect error or an end-of-stream frame).
		post := func(path, contentType, encoding string, body []byte) string {
			req, err := http.NewRequest(http.MethodPost, env.URL+path, bytes.NewReader(body))
			Expect(err).NotTo(HaveOccurred())
			req.Header.Set("Content-Type", contentType)
			if encoding != "" {
				req.Header.Set("Content-Encoding", encoding)
			}
			resp, err := env.HTTP1.Do(req)
			Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			out, err := io.ReadAll(resp.Body)
			Expect(err).NotTo(HaveOccurred())
			return string(out)
		}

		DescribeTable("are refused with resource_exhausted on every route, inflated no further than one byte past the route's limit",
			func(path, contentType, encoding string, bomb []byte, enveloped bool, limit int) {
				body := bomb
				if enveloped {
					body = frame.Encode(frame.FlagCompressed, bomb)
				}
				answer := post(path, contentType, encoding, body)
				Expect(answer).To(ContainSubstring("resource_exhausted"))
				Expect(answer).To(ContainSubstring(fmt.Sprintf("connect frame of %d bytes exceeds the %d byte limit", limit+1, limit)))
			},
			Entry("BidiAppend, Content-Encoding gzip (32 MiB and an envelope header)",
				aiserverv1connect.BidiServiceBidiAppendProcedure, "application/proto", "gzip", gzipBomb, false, frame.DefaultMaxSize+frame.HeaderSize),
			Entry("BidiAppend, enveloped and flagged compressed (32 MiB)",
				aiserverv1connect.BidiServiceBidiAppendProcedure, "application/connect+proto", "", gzipBomb, true, frame.DefaultMaxSize),
			Entry("RunSSE, Content-Encoding gzip (a request id needs no more than 64 KiB)",
				agentv1connect.AgentServiceRunSSEProcedure, "application/connect+proto", "gzip", smallBomb, false, 64<<10+frame.HeaderSize),
			Entry("RunSSE, enveloped and flagged compressed",
				agentv1connect.AgentServiceRunSSEProcedure, "application/connect+proto", "", smallBomb, true, 64<<10),
			Entry("a model list, Content-Encoding gzip (1 MiB)",
				agentv1connect.AgentServiceGetUsableModelsProcedure, "application/proto", "gzip", smallBomb, false, 1<<20+frame.HeaderSize),
		)
	})

	Describe("held bytes", func() {
		It("refuse a caller's append over its bound with resource_exhausted and a message saying so, while another caller goes on", func(ctx SpecContext) {
			opts := cursor.Options{Transport: cursortest.FastTimings()}
			opts.Transport.MaxHeldBytes = 64 << 10
			opts.Transport.OrphanGrace = time.Minute
			url := serveAs(cursortest.NewScriptedRunHandler(func(ctx context.Context, turn *transport.Turn) error {
				return waitForLabel(ctx, turn, 99) // the turns stay live
			}), opts)
			alice := cursortest.NewClient(url, asUser("alice"), "alice-1")
			bob := cursortest.NewClient(url, asUser("bob"), "bob-1")
			for _, c := range []*cursortest.Client{alice, bob} {
				Expect(c.SendAt(ctx, 0, cursortest.RunRequest("conv", "m", "hi"))).To(Succeed())
			}

			By("alice buffers appends out of order until she has no room")
			var err error
			for seq := int64(2); seq < 10 && err == nil; seq++ {
				err = alice.SendAt(ctx, seq, bigFollowUp)
			}
			Expect(err).To(HaveConnectCode(connect.CodeResourceExhausted))
			Expect(err).To(MatchError(ContainSubstring("bytes of your appends are waiting to be applied")))

			By("bob's appends are not affected")
			Expect(bob.SendAt(ctx, 2, bigFollowUp)).To(Succeed())
			Expect(bob.SendAt(ctx, 3, bigFollowUp)).To(Succeed())
		})
	})

	Describe("the relay mailbox between replicas", func() {
		It("refuses a caller's appends for request ids no replica holds once its mailbox is full, with resource_exhausted, while another caller's still go", func(ctx SpecContext) {
			db, err := pgtest.New(ctx)
			Expect(err).NotTo(HaveOccurred(), "this spec needs a PostgreSQL server and never skips")
			DeferCleanup(db.Close)
			pool, err := postgres.Open(ctx, db.DSN, zap.NewNop())
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(pool.Close)
			relay, err := postgres.NewRelay(ctx, pool, postgres.RelayOptions{MaxOwnerBytes: 64 << 10}, zap.NewNop())
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(relay.Close)
			url := serveAs(cursortest.NewScriptedRunHandler(nil), cursor.Options{Transport: cursortest.FastTimings(), Relay: relay})

			By("mallory appends to request ids nobody holds until her mailbox is full")
			var err2 error
			for i := 0; i < 10 && err2 == nil; i++ {
				err2 = cursortest.NewClient(url, asUser("mallory"), fmt.Sprintf("nobody-%d", i)).SendAt(ctx, 1, bigFollowUp)
			}
			Expect(err2).To(HaveConnectCode(connect.CodeResourceExhausted))
			Expect(err2).To(MatchError(ContainSubstring("limit 65536 per user")))

			By("alice's appends still go to the mailbox")
			Expect(cursortest.NewClient(url, asUser("alice"), "alice-early").SendAt(ctx, 1, bigFollowUp)).To(Succeed())
		})
	})

	Describe("request bodies that trickle in", func() {
		var url string

		BeforeEach(func() {
			opts := cursor.Options{Transport: cursortest.FastTimings(), BodyReadTimeout: 200 * time.Millisecond}
			opts.Transport.Heartbeat = 50 * time.Millisecond
			opts.Transport.OrphanGrace = time.Minute
			url = serveAs(cursortest.NewScriptedRunHandler(func(ctx context.Context, turn *transport.Turn) error {
				return waitForLabel(ctx, turn, 7)
			}), opts)
		})

		// trickle sends the headers of a POST to path announcing a 200 kB
		// body, then one byte, and returns what the server answers before
		// it closes the connection.
		trickle := func(path string) string {
			conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
			Expect(err).NotTo(HaveOccurred())
			defer conn.Close()
			Expect(conn.SetDeadline(time.Now().Add(10 * time.Second))).To(Succeed())
			_, err = fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: api2.cursor.sh\r\nContent-Type: application/connect+proto\r\nContent-Length: 200000\r\n\r\n\x00", path)
			Expect(err).NotTo(HaveOccurred())
			out, err := io.ReadAll(conn)
			Expect(err).NotTo(HaveOccurred(), "the server ends the request; the client did not have to give up")
			return string(out)
		}

		DescribeTable("are cut with deadline_exceeded",
			func(path string) {
				Expect(trickle(path)).To(ContainSubstring("deadline_exceeded"))
			},
			Entry("on BidiAppend", aiserverv1connect.BidiServiceBidiAppendProcedure),
			Entry("on RunSSE", agentv1connect.AgentServiceRunSSEProcedure),
		)

		It("but a RunSSE stream that follows its body runs past the body's read timeout", func(ctx SpecContext) {
			c := cursortest.NewClient(url, asUser("alice"), "alice-long")
			s, err := c.Subscribe(ctx)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(s.Close)
			Expect(c.Send(ctx, cursortest.RunRequest("conv", "m", "hi"))).To(Succeed())
			Consistently(s.Done(), time.Second).ShouldNot(BeClosed(), "five times the read timeout, heartbeats flowing")
			Expect(c.Send(ctx, label(7))).To(Succeed())
			Eventually(s.Done()).Should(BeClosed())
			Expect(s.ReadError()).NotTo(HaveOccurred())
			Expect(s.EndError()).To(BeNil())
		})
	})
})
