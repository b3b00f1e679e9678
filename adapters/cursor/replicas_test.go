package cursor_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/transport"
	"keygate/adapters/pgtest"
	"keygate/adapters/postgres"
	"keygate/adapters/upstream"
	"keygate/adapters/upstream/upstreamtest"
	"keygate/domain/identity"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

// testUser is the header a replica below reads its caller from, standing in
// for the Cursor proxy that authenticates requests in a real deployment.
const testUser = "X-Test-User"

// replica is one Keygate process of a group sharing a database: its own
// pool, relay, adapter and HTTP server.
type replica struct {
	url     string
	handler *cursortest.ScriptedRunHandler
	srv     *cursor.Server
	// kill stops the replica as kill -9 would: its connections drop, and
	// it neither renews nor releases its run keys.
	kill func()
}

// replicaLease is the run keys' lease period in these specs: long enough
// for a spec's steps, short enough for a dead replica's keys to move.
const replicaLease = 2 * time.Second

// replicaDatabase is a fresh database for a group of replicas.
func replicaDatabase(ctx context.Context) string {
	db, err := pgtest.New(ctx)
	Expect(err).NotTo(HaveOccurred(), "the replica specs need a PostgreSQL server and never skip")
	DeferCleanup(db.Close)
	return db.DSN
}

// openRelay opens a replica's own pool and relay on dsn.
func openRelay(dsn string) (*postgres.DB, *postgres.Relay) {
	ctx := context.Background()
	db, err := postgres.Open(ctx, dsn, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	relay, err := postgres.NewRelay(ctx, db, postgres.RelayOptions{LeaseTTL: replicaLease}, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(relay.Close)
	return db, relay
}

func startReplica(dsn string, script cursortest.Script, opts cursor.Options) *replica {
	db, relay := openRelay(dsn)

	opts.Relay = relay
	h := cursortest.NewScriptedRunHandler(script)
	srv := cursor.New(h, opts, zap.NewNop())
	mux := http.NewServeMux()
	for p, route := range srv.Routes() {
		mux.Handle(p, route)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u := r.Header.Get(testUser); u != "" {
			r = r.WithContext(identity.NewContext(r.Context(), identity.Identity{UserID: u, Name: u + "@example.com"}))
		}
		mux.ServeHTTP(w, r)
	}))
	DeferCleanup(ts.Close)
	DeferCleanup(func() {
		closing, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Close(closing)
	})
	var once sync.Once
	kill := func() {
		once.Do(func() {
			ts.CloseClientConnections()
			ts.Close()
			relay.Close()
			db.Close()
		})
	}
	return &replica{url: ts.URL, handler: h, srv: srv, kill: kill}
}

// subscribed opens c's RunSSE, closed at the spec's end.
func subscribed(ctx context.Context, c *cursortest.Client) *cursortest.Stream {
	GinkgoHelper()
	s, err := c.Subscribe(ctx)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(s.Close)
	return s
}

// headerTransport adds a header to every request (the caller's identity).
type headerTransport struct {
	key, value string
	next       http.RoundTripper
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(t.key, t.value)
	return t.next.RoundTrip(r)
}

// asUser is an HTTP client whose every request is the given user's.
func asUser(user string) *http.Client {
	tr := &http.Transport{}
	DeferCleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: headerTransport{key: testUser, value: user, next: tr}}
}

// roundRobin is a load balancer in front of several replicas: each request
// goes to the next one.
type roundRobin struct {
	targets []*url.URL
	n       atomic.Int64
	next    http.RoundTripper
}

func (rr *roundRobin) RoundTrip(r *http.Request) (*http.Response, error) {
	t := rr.targets[int(rr.n.Add(1)-1)%len(rr.targets)]
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = t.Scheme, t.Host, ""
	return rr.next.RoundTrip(r)
}

var _ = Describe("Several replicas on one PostgreSQL database", Ordered, func() {
	var (
		dsn  string
		ctx  context.Context
		ws   *cursortest.Workspace
		one  *replica
		two  *replica
		opts cursor.Options
	)

	BeforeAll(func(ctx SpecContext) { dsn = replicaDatabase(ctx) })

	BeforeEach(func() {
		ctx = context.Background()
		ws = cursortest.NewWorkspace(GinkgoT().TempDir())
		Expect(os.WriteFile(filepath.Join(ws.Root, "README.md"), []byte("# Keygate"), 0o644)).To(Succeed())
		opts = cursor.Options{Transport: cursortest.FastTimings()}
	})

	JustBeforeEach(func() {
		one = startReplica(dsn, cursortest.ReadBack("README.md"), opts)
		two = startReplica(dsn, cursortest.ReadBack("README.md"), opts)
	})

	// split is a client whose RunSSE goes to one replica and every
	// BidiAppend to the other.
	split := func(user string, runsse, appends *replica, requestID string) *cursortest.Client {
		hc := asUser(user)
		c := cursortest.NewClient(runsse.url, hc, requestID)
		c.AppendTo(appends.url, hc)
		c.OnMessage = ws.Handle
		return c
	}
	subscribe := func(c *cursortest.Client) *cursortest.Stream { return subscribed(ctx, c) }

	It("completes a turn with a tool round when RunSSE is on one replica and every BidiAppend on the other", func() {
		c := split("alice", one, two, newRequestID())
		s := subscribe(c)
		Expect(c.Send(ctx, cursortest.RunRequest("conv-split", "byok-model", "what is in README.md?"))).To(Succeed())
		Eventually(s.Done()).WithTimeout(15 * time.Second).Should(BeClosed())
		Expect(s.ReadError()).NotTo(HaveOccurred())
		Expect(s.EndError()).To(BeNil())
		Expect(s.Texts()).To(Equal([]string{"# Keygate"}))
		Expect(ws.Execs()).To(HaveLen(1))

		By("running the turn on the replica that holds the RunSSE, under the caller's identity")
		Expect(one.handler.Turns()).To(HaveLen(1))
		Expect(two.handler.Turns()).To(BeEmpty())
	})

	It("keeps an opening append that arrives before any RunSSE until one replica holds the request id", func() {
		c := split("alice", one, two, newRequestID())
		Expect(c.Send(ctx, cursortest.RunRequest("conv-early", "byok-model", "what is in README.md?"))).To(Succeed())
		Expect(c.Send(ctx, cursortest.Heartbeat())).To(Succeed())
		s := subscribe(c)
		Eventually(s.Done()).WithTimeout(15 * time.Second).Should(BeClosed())
		Expect(s.EndError()).To(BeNil())
		Expect(s.Texts()).To(Equal([]string{"# Keygate"}))
		Expect(one.handler.Turns()).To(HaveLen(1))
	})

	It("completes turns behind a round-robin load balancer, whatever replica each request reaches", func() {
		for i := range 3 {
			rr := &roundRobin{next: asUser("alice").Transport}
			for _, r := range []*replica{one, two} {
				u, err := url.Parse(r.url)
				Expect(err).NotTo(HaveOccurred())
				rr.targets = append(rr.targets, u)
			}
			rr.n.Store(int64(i))
			c := cursortest.NewClient("http://balancer.invalid", &http.Client{Transport: rr}, newRequestID())
			c.OnMessage = ws.Handle
			s := subscribe(c)
			Expect(c.Send(ctx, cursortest.RunRequest("conv-rr", "byok-model", "what is in README.md?"))).To(Succeed())
			Eventually(s.Done()).WithTimeout(15 * time.Second).Should(BeClosed())
			Expect(s.EndError()).To(BeNil())
			Expect(s.Texts()).To(Equal([]string{"# Keygate"}))
		}
		Expect(len(one.handler.Turns()) + len(two.handler.Turns())).To(Equal(3))
	})

	Context("when the client reuses the request id for its next turn at once", func() {
		BeforeEach(func() { opts.Transport.Linger = time.Second })

		It("runs that turn on the replica its new RunSSE reaches, the first replica having let go at the stream's end", func() {
			id := newRequestID()
			first := split("alice", one, two, id)
			s := subscribe(first)
			Expect(first.Send(ctx, cursortest.RunRequest("conv-reuse", "byok-model", "what is in README.md?"))).To(Succeed())
			Eventually(s.Done()).WithTimeout(15 * time.Second).Should(BeClosed())
			Expect(s.EndError()).To(BeNil())

			next := split("alice", two, one, id)
			s2 := subscribe(next)
			Expect(next.Send(ctx, cursortest.RunRequest("conv-reuse", "byok-model", "and again?"))).To(Succeed())
			Eventually(s2.Done()).WithTimeout(15 * time.Second).Should(BeClosed())
			Expect(s2.EndError()).To(BeNil())
			Expect(s2.Texts()).To(Equal([]string{"# Keygate"}))
			Expect(one.handler.Turns()).To(HaveLen(1))
			Expect(two.handler.Turns()).To(HaveLen(1))
		})
	})

	It("refuses an opening append without a model on the replica that receives it", func() {
		c := split("alice", one, two, newRequestID())
		err := c.Send(ctx, &agentv1.AgentClientMessage{Message: &agentv1.AgentClientMessage_RunRequest{RunRequest: &agentv1.AgentRunRequest{}}})
		Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
	})

	Context("with a turn that records its inbox until label 2", func() {
		var recorder *cursortest.Recorder

		BeforeEach(func() { recorder = &cursortest.Recorder{} })

		JustBeforeEach(func() {
			// Replaces one: a turn that records its inbox until label 2.
			one = startReplica(dsn, recorder.Until(isLabel(2)), opts)
		})

		It("delivers the appends sent while the owner's RunSSE was cut to the running turn once it reconnects", func() {
			c := split("alice", one, two, newRequestID())
			s := subscribe(c)
			Expect(c.Send(ctx, cursortest.RunRequest("conv-cut", "byok-model", "hello"))).To(Succeed())
			Expect(c.Send(ctx, label(1))).To(Succeed())
			Eventually(recorder.Messages).WithTimeout(10 * time.Second).Should(HaveLen(1))
			s.Close()
			Eventually(s.Done()).Should(BeClosed())
			Expect(c.Send(ctx, label(2))).To(Succeed())
			again := subscribe(c)
			Eventually(again.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
			Expect(again.EndError()).To(BeNil())
			Expect(labels(recorder.Messages())).To(Equal([]uint32{1, 2}))
		})

		It("never feeds another user's payload for the same request id to the owner's run, whatever replica holds which stream", func() {
			id := newRequestID()
			alice := split("alice", one, two, id)
			mallory := split("mallory", one, two, id)
			s := subscribe(alice)
			Expect(alice.Send(ctx, cursortest.RunRequest("conv-owned", "byok-model", "hello"))).To(Succeed())
			Expect(alice.Send(ctx, label(1))).To(Succeed())
			Eventually(recorder.Messages).WithTimeout(10 * time.Second).Should(HaveLen(1))

			By("mallory holding the request id on the owner's replica and appending to it from the other")
			ms := subscribe(mallory)
			Expect(mallory.SendAt(ctx, 2, label(99))).To(Succeed(), "the other replica stores it; it cannot tell the owner")
			Expect(mallory.SendAt(ctx, 3, cursortest.Cancel("mallory"))).To(Succeed())
			Eventually(ms.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
			Expect(ms.EndError()).To(HaveConnectCode(connect.CodeInvalidArgument), "as on a request id nobody used: hers has no opening append")
			Expect(ms.EndError().Message()).To(Equal(transport.ErrRouteTimeout.Error()))
			Expect(ms.Texts()).To(BeEmpty())

			Expect(alice.Send(ctx, label(2))).To(Succeed())
			Eventually(s.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
			Expect(s.EndError()).To(BeNil())
			Expect(labels(recorder.Messages())).To(Equal([]uint32{1, 2}))
		})
	})

	Context("with a turn for a model Keygate does not serve", func() {
		var fake *fakeCursor

		BeforeEach(func() {
			fake = &fakeCursor{texts: []string{"from", " cursor"}, gate: make(chan struct{})}
			srv, err := upstreamtest.NewFakeCursor(fake.routes())
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(srv.Close)
			fwd, err := upstream.New(upstream.Options{
				Proxy:   upstream.ProxyDirect,
				RootCAs: srv.Pool,
				Dial:    upstreamtest.Dialer(map[string]string{"api2.cursor.sh:443": srv.Addr}),
			}, zap.NewNop())
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(fwd.CloseIdleConnections)
			opts.Upstream, opts.KeygateModel = fwd, keygateOnly
		})

		It("sends every append to Cursor with the client's headers from the replica holding the RunSSE, which relays Cursor's stream", func() {
			c := split("alice", one, two, newRequestID())
			c.Header.Set("Authorization", "Bearer cursor-token")
			s := subscribe(c)
			Expect(c.Send(ctx, cursortest.RunRequest("conv-cursor", "cursor-model", "hello"))).To(Succeed())
			Expect(c.Send(ctx, cursortest.Heartbeat())).To(Succeed())
			Expect(c.Send(ctx, cursortest.ExecStreamClose(7))).To(Succeed())
			Eventually(func() []int64 { return seqnos(fake.Appends()) }).WithTimeout(10 * time.Second).Should(Equal([]int64{0, 1, 2}))
			Eventually(fake.gate).Should(BeSent(struct{}{}), "Cursor ends its stream once it has every append")
			Eventually(s.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
			Expect(s.EndError()).To(BeNil())
			Expect(s.Texts()).To(Equal([]string{"from", " cursor"}))
			Expect(fake.AppendHeaders()[0].Get("Authorization")).To(Equal("Bearer cursor-token"))
			Expect(fake.SSE()).To(HaveLen(1))
			Expect(one.handler.Turns()).To(BeEmpty())
			Expect(two.handler.Turns()).To(BeEmpty())
		})
	})
})

// narrate is a turn that answers each label it receives with the text
// "part-<label>" and ends after label last.
func narrate(last uint32) cursortest.Script {
	return func(ctx context.Context, turn *transport.Turn) error {
		for {
			m, err := turn.Inbox.Next(ctx)
			if err != nil {
				return context.Cause(ctx)
			}
			c := m.GetExecClientControlMessage().GetStreamClose()
			if c == nil {
				continue
			}
			if err := turn.Output.Send(cursortest.TextDelta(fmt.Sprintf("part-%d", c.GetId()))); err != nil {
				return err
			}
			if c.GetId() == last {
				return nil
			}
		}
	}
}

// runKey is the relay key of a user's request id (bidi's relayKey).
func runKey(user, requestID string) string {
	return strconv.Itoa(len(user)) + ":" + user + "/" + requestID
}

var _ = Describe("Runs owned by one replica at a time", Ordered, func() {
	var (
		dsn  string
		ctx  context.Context
		opts cursor.Options
	)

	BeforeAll(func(ctx SpecContext) { dsn = replicaDatabase(ctx) })

	BeforeEach(func() {
		ctx = context.Background()
		opts = cursor.Options{Transport: cursortest.FastTimings()}
		// A cut stream's run waits for its client as in production, long
		// enough for a reconnect through another replica.
		opts.Transport.OrphanGrace = 20 * time.Second
	})

	// observer reads the relay's tables as a third replica would.
	observer := func() *postgres.Relay {
		_, r := openRelay(dsn)
		return r
	}
	subscribe := func(c *cursortest.Client) *cursortest.Stream { return subscribed(ctx, c) }
	// runsOn reconnects c through replica to and has the turn run there, and
	// not on from: the opening append the client sent was not lost.
	runsOn := func(c *cursortest.Client, hc *http.Client, to, from *replica) {
		c.Rebind(to.url, hc)
		again := subscribe(c)
		Expect(c.Send(ctx, label(1))).To(Succeed())
		Eventually(again.Done()).WithTimeout(15 * time.Second).Should(BeClosed())
		Expect(again.EndError()).To(BeNil())
		Expect(again.Texts()).To(Equal([]string{"part-1"}))
		Expect(to.handler.Turns()).To(HaveLen(1))
		Expect(from.handler.Turns()).To(BeEmpty())
	}

	// followedOnTwo runs a turn that narrates parts on replica one, with
	// the client's appends through two; after part-1 it cuts the stream and
	// serves it again from two, which follows one's output.
	followedOnTwo := func(conv string, parts uint32) (one, two *replica, c *cursortest.Client, followed *cursortest.Stream) {
		one = startReplica(dsn, narrate(parts), opts)
		two = startReplica(dsn, narrate(parts), opts)
		hc := asUser("alice")
		c = cursortest.NewClient(one.url, hc, newRequestID())
		c.AppendTo(two.url, hc)
		s := subscribe(c)
		Expect(c.Send(ctx, cursortest.RunRequest(conv, "byok-model", "hello"))).To(Succeed())
		Expect(c.Send(ctx, label(1))).To(Succeed())
		Eventually(s.Texts).WithTimeout(10 * time.Second).Should(Equal([]string{"part-1"}))
		s.Close()
		Eventually(s.Done()).Should(BeClosed())
		c.Rebind(two.url, hc)
		followed = subscribe(c)
		Eventually(followed.Texts).WithTimeout(10 * time.Second).Should(Equal([]string{"part-1"}))
		return one, two, c, followed
	}

	It("serves a RunSSE cut mid-turn from the other replica: every message once, in order, and the turn goes on where it runs", func() {
		one := startReplica(dsn, narrate(4), opts)
		two := startReplica(dsn, narrate(4), opts)
		hc := asUser("alice")
		c := cursortest.NewClient(one.url, hc, newRequestID())
		c.AppendTo(two.url, hc)
		s := subscribe(c)
		Expect(c.Send(ctx, cursortest.RunRequest("conv-move", "byok-model", "hello"))).To(Succeed())
		Expect(c.Send(ctx, label(1))).To(Succeed())
		Expect(c.Send(ctx, label(2))).To(Succeed())
		Eventually(s.Texts).WithTimeout(10 * time.Second).Should(Equal([]string{"part-1", "part-2"}))

		By("cutting the stream and sending while no stream is attached")
		s.Close()
		Eventually(s.Done()).Should(BeClosed())
		Expect(c.Send(ctx, label(3))).To(Succeed())

		By("reconnecting through the other replica, which does not own the run")
		c.Rebind(two.url, hc)
		again := subscribe(c)
		Eventually(again.Texts).WithTimeout(15 * time.Second).Should(Equal([]string{"part-1", "part-2", "part-3"}))
		Expect(c.Send(ctx, label(4))).To(Succeed())
		Eventually(again.Done()).WithTimeout(15 * time.Second).Should(BeClosed())
		Expect(again.ReadError()).NotTo(HaveOccurred())
		Expect(again.EndError()).To(BeNil())
		Expect(again.Texts()).To(Equal([]string{"part-1", "part-2", "part-3", "part-4"}))

		By("having run the turn on the first replica only")
		Expect(one.handler.Turns()).To(HaveLen(1))
		Expect(two.handler.Turns()).To(BeEmpty())
		Expect(one.handler.Ends()).To(Equal([]error{nil}))
	})

	It("wakes a stream served from another replica as soon as its owner publishes, without reading on a timer", func() {
		// A follower reads without a wake only once a minute here: every
		// part below reaches it through the relay's notifications.
		opts.FollowPoll = time.Minute
		one, two, c, followed := followedOnTwo("conv-woken", 3)
		Expect(c.Send(ctx, label(2))).To(Succeed())
		Eventually(followed.Texts).WithTimeout(10 * time.Second).Should(Equal([]string{"part-1", "part-2"}))
		Expect(c.Send(ctx, label(3))).To(Succeed())
		Eventually(followed.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
		Expect(followed.EndError()).To(BeNil())
		Expect(followed.Texts()).To(Equal([]string{"part-1", "part-2", "part-3"}))
		Expect(one.handler.Turns()).To(HaveLen(1))
		Expect(two.handler.Turns()).To(BeEmpty())
	})

	Context("when the run's orphan grace is short", func() {
		BeforeEach(func() { opts.Transport.OrphanGrace = time.Second })

		It("keeps the run going while its only stream is served by another replica", func() {
			one, _, c, followed := followedOnTwo("conv-watched", 2)

			By("staying longer than the orphan grace with the stream on the other replica only")
			Consistently(one.handler.Ended).WithTimeout(3 * time.Second).Should(BeZero())
			Expect(c.Send(ctx, label(2))).To(Succeed())
			Eventually(followed.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
			Expect(followed.EndError()).To(BeNil())
			Expect(followed.Texts()).To(Equal([]string{"part-1", "part-2"}))
		})
	})

	It("serves a turn behind a round-robin balancer over three replicas through two cuts, each stream getting every message once and in order", func() {
		reps := []*replica{startReplica(dsn, narrate(5), opts), startReplica(dsn, narrate(5), opts), startReplica(dsn, narrate(5), opts)}
		rr := &roundRobin{next: asUser("alice").Transport}
		for _, r := range reps {
			u, err := url.Parse(r.url)
			Expect(err).NotTo(HaveOccurred())
			rr.targets = append(rr.targets, u)
		}
		c := cursortest.NewClient("http://balancer.invalid", &http.Client{Transport: rr}, newRequestID())
		s := subscribe(c)
		Expect(c.Send(ctx, cursortest.RunRequest("conv-three", "byok-model", "hello"))).To(Succeed())
		want := []string{}
		for n := uint32(1); n <= 4; n++ {
			Expect(c.Send(ctx, label(n))).To(Succeed())
			want = append(want, fmt.Sprintf("part-%d", n))
			Eventually(s.Texts).WithTimeout(15 * time.Second).Should(Equal(want))
			if n%2 == 0 {
				By(fmt.Sprintf("cutting the stream after part-%d; the balancer sends the reconnect on", n))
				s.Close()
				Eventually(s.Done()).Should(BeClosed())
				s = subscribe(c)
				Eventually(s.Texts).WithTimeout(15*time.Second).Should(Equal(want), "the missed and the seen messages, once each")
			}
		}
		Expect(c.Send(ctx, label(5))).To(Succeed())
		Eventually(s.Done()).WithTimeout(15 * time.Second).Should(BeClosed())
		Expect(s.EndError()).To(BeNil())
		Expect(s.Texts()).To(Equal(append(want, "part-5")))
		turns := 0
		for _, r := range reps {
			turns += len(r.handler.Turns())
		}
		Expect(turns).To(Equal(1), "one replica ran the turn")
	})

	It("moves a run key to another replica once its owner died, and ends a stream that followed the dead owner with unavailable", func() {
		recorder := &cursortest.Recorder{}
		one := startReplica(dsn, cursortest.Committing(recorder.Until(isLabel(3))), opts)
		two := startReplica(dsn, cursortest.Committing(recorder.Until(isLabel(3))), opts)
		hc := asUser("alice")
		id := newRequestID()
		c := cursortest.NewClient(one.url, hc, id)
		c.AppendTo(two.url, hc)
		s := subscribe(c)
		Expect(c.Send(ctx, cursortest.RunRequest("conv-takeover", "byok-model", "hello"))).To(Succeed())
		Expect(c.Send(ctx, label(1))).To(Succeed())
		Eventually(recorder.Messages).WithTimeout(10 * time.Second).Should(HaveLen(1))

		By("killing the owner; the client reconnects through the other replica")
		one.kill()
		Eventually(s.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
		c.Rebind(two.url, hc)
		followed := subscribe(c)
		Eventually(followed.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
		Expect(followed.EndError()).To(HaveConnectCode(connect.CodeUnavailable))

		By("sending the turn again: the other replica takes the key with a newer token and runs it")
		watch := observer()
		var before ports.OutputPage
		Eventually(func() (bool, error) {
			var err error
			before, err = watch.Follow(ctx, runKey("alice", id), 0)
			return before.Held, err
		}).Should(BeFalse(), "the dead owner's lease expired, and the stream that followed it let the key go")
		c.ResetSeqno()
		resumed := subscribe(c)
		Expect(c.Send(ctx, cursortest.Request("conv-takeover", "byok-model", cursortest.ResumeAction(), nil))).To(Succeed())
		Expect(c.Send(ctx, label(2))).To(Succeed())
		Expect(c.Send(ctx, label(3))).To(Succeed())
		Eventually(resumed.Done()).WithTimeout(15 * time.Second).Should(BeClosed())
		Expect(resumed.EndError()).To(BeNil())
		Expect(labels(recorder.Messages())).To(Equal([]uint32{1, 2, 3}))
		Expect(two.handler.Turns()).To(HaveLen(1))
		after, err := watch.Follow(ctx, runKey("alice", id), 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(after.Token).To(BeNumerically(">", before.Token))
	})

	for _, direct := range []bool{false, true} {
		how := "forwarded through the relay"
		if direct {
			how = "sent straight to its owner"
		}
		It("runs a turn whose owner died before its first commit on the replica that takes the key, from its appends "+how, func() {
			recorder := &cursortest.Recorder{}
			one := startReplica(dsn, recorder.Until(isLabel(3)), opts) // never commits: killed before
			two := startReplica(dsn, recorder.Until(isLabel(3)), opts)
			hc := asUser("alice")
			c := cursortest.NewClient(one.url, hc, newRequestID())
			if !direct {
				c.AppendTo(two.url, hc)
			}
			s := subscribe(c)
			Expect(c.Send(ctx, cursortest.RunRequest("conv-precommit", "byok-model", "hello"))).To(Succeed())
			Expect(c.Send(ctx, label(1))).To(Succeed())
			Eventually(recorder.Messages).WithTimeout(10 * time.Second).Should(HaveLen(1))
			Expect(one.handler.Turns()).To(HaveLen(1))

			By("killing the owner before the turn is stored; the client reconnects through the other replica")
			one.kill()
			Eventually(s.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
			c.Rebind(two.url, hc)
			c.AppendTo(two.url, hc)
			taken := subscribe(c)
			Eventually(two.handler.Turns).WithTimeout(10*time.Second).Should(HaveLen(1), "the other replica runs the turn from its opening append")
			Expect(two.handler.Turns()[0].Request.GetAction().GetUserMessageAction().GetUserMessage().GetText()).To(Equal("hello"))
			Eventually(recorder.Messages).WithTimeout(10*time.Second).Should(HaveLen(2), "and gets the append the dead owner had taken")
			Expect(c.Send(ctx, label(2))).To(Succeed())
			Expect(c.Send(ctx, label(3))).To(Succeed())
			Eventually(taken.Done()).WithTimeout(15 * time.Second).Should(BeClosed())
			Expect(taken.EndError()).To(BeNil())
			Expect(labels(recorder.Messages())).To(Equal([]uint32{1, 1, 2, 3}))
		})
	}

	It("drops an append that arrives after its stream ended instead of feeding it to the next turn of the reused request id", func() {
		recorder := &cursortest.Recorder{}
		stop := func(m *agentv1.AgentClientMessage) bool { return isLabel(1)(m) || isLabel(3)(m) }
		one := startReplica(dsn, recorder.Until(stop), opts)
		two := startReplica(dsn, recorder.Until(stop), opts)
		hc := asUser("alice")
		id := newRequestID()
		c := cursortest.NewClient(one.url, hc, id)
		c.AppendTo(two.url, hc)
		s := subscribe(c)
		Expect(c.Send(ctx, cursortest.RunRequest("conv-late", "byok-model", "first"))).To(Succeed())
		Expect(c.Send(ctx, label(1))).To(Succeed())
		Eventually(s.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
		Expect(s.EndError()).To(BeNil())
		watch := observer()
		Eventually(func() (bool, error) {
			page, err := watch.Follow(ctx, runKey("alice", id), 0)
			return page.Held, err
		}).WithTimeout(10*time.Second).Should(BeFalse(), "the owner let the key go at the stream's end")

		By("an append of the ended turn reaching the other replica late")
		Expect(c.Send(ctx, label(5))).To(Succeed(), "accepted and dropped, as a late reply on one replica")

		By("the next turn on the same request id, its stream on the other replica")
		c.ResetSeqno()
		c.Rebind(two.url, hc)
		c.AppendTo(one.url, hc)
		next := subscribe(c)
		Expect(c.Send(ctx, cursortest.RunRequest("conv-late", "byok-model", "second"))).To(Succeed())
		Expect(c.Send(ctx, label(2))).To(Succeed())
		Expect(c.Send(ctx, label(3))).To(Succeed())
		Eventually(next.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
		Expect(next.EndError()).To(BeNil())
		Expect(labels(recorder.Messages())).To(Equal([]uint32{1, 2, 3}))
	})

	It("hands a stream's request id over when its replica starts draining before the opening append arrives, so the turn runs where the client reconnects", func() {
		one := startReplica(dsn, narrate(1), opts)
		two := startReplica(dsn, narrate(1), opts)
		hc := asUser("alice")
		id := newRequestID()
		c := cursortest.NewClient(one.url, hc, id)
		c.AppendTo(two.url, hc)
		s := subscribe(c)
		watch := observer()
		Eventually(func() (bool, error) {
			page, err := watch.Follow(ctx, runKey("alice", id), 0)
			return page.Held, err
		}).WithTimeout(10*time.Second).Should(BeTrue(), "the stream's replica holds the request id")

		By("draining that replica while its stream waits for the opening append")
		Expect(one.srv.Drain(ctx)).To(Succeed())
		Eventually(s.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
		Expect(s.EndError()).To(HaveConnectCode(connect.CodeUnavailable), "the client is sent to another replica")

		By("the opening append reaching the other replica, as the client had sent it")
		Expect(c.Send(ctx, cursortest.RunRequest("conv-drain-open", "byok-model", "hello"))).To(Succeed())

		By("the client's reconnect taking the request id there, with the append the draining replica did not keep")
		runsOn(c, hc, two, one)
	})

	It("hands an opening append that reached a draining replica's held request id over instead of losing it", func() {
		one := startReplica(dsn, narrate(1), opts)
		two := startReplica(dsn, narrate(1), opts)
		hc := asUser("alice")
		id := newRequestID()
		c := cursortest.NewClient(one.url, hc, id)
		s := subscribe(c)
		watch := observer()
		Eventually(func() (bool, error) {
			page, err := watch.Follow(ctx, runKey("alice", id), 0)
			return page.Held, err
		}).WithTimeout(10*time.Second).Should(BeTrue(), "the stream's replica holds the request id")
		Expect(one.srv.Drain(ctx)).To(Succeed())

		By("sending the opening append to the draining replica itself: accepted, as the client goes on")
		Expect(c.Send(ctx, cursortest.RunRequest("conv-drain-direct", "byok-model", "hello"))).To(Succeed())
		Eventually(s.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
		Expect(s.EndError()).To(HaveConnectCode(connect.CodeUnavailable))

		By("reconnecting through the other replica, which runs the turn")
		runsOn(c, hc, two, one)
	})

	It("lets a stream that followed an owner which let the key go before its turn started take the key, and runs the turn there", func() {
		opts.Transport.Heartbeat = 100 * time.Millisecond // a follower heartbeats while idle; an owner waiting for its turn does not
		one := startReplica(dsn, narrate(1), opts)
		two := startReplica(dsn, narrate(1), opts)
		hc := asUser("alice")
		id := newRequestID()
		first := cursortest.NewClient(one.url, hc, id)
		s := subscribe(first)
		watch := observer()
		Eventually(func() (bool, error) {
			page, err := watch.Follow(ctx, runKey("alice", id), 0)
			return page.Held, err
		}).WithTimeout(10*time.Second).Should(BeTrue(), "the first stream's replica holds the request id")

		By("a second stream of the request id on the other replica, following the owner")
		c := cursortest.NewClient(two.url, hc, id)
		followed := subscribe(c)
		Eventually(followed.Heartbeats).Should(BeNumerically(">", 0))

		By("the owner draining before the turn's opening append: it lets the key go without an end")
		Expect(one.srv.Drain(ctx)).To(Succeed())
		Eventually(s.Done()).Should(BeClosed())
		Expect(c.Send(ctx, cursortest.RunRequest("conv-take-over", "byok-model", "hello"))).To(Succeed())
		Expect(c.Send(ctx, label(1))).To(Succeed())

		By("the follower's replica taking the key and running the turn on the same stream")
		Eventually(followed.Done()).WithTimeout(15 * time.Second).Should(BeClosed())
		Expect(followed.EndError()).To(BeNil())
		Expect(followed.Texts()).To(Equal([]string{"part-1"}))
		Expect(two.handler.Turns()).To(HaveLen(1))
		Expect(one.handler.Turns()).To(BeEmpty())
	})

	It("drains: the running turn finishes, a new run is refused so the client goes to another replica, and the keys are handed over", func() {
		one := startReplica(dsn, narrate(2), opts)
		two := startReplica(dsn, narrate(2), opts)
		hc := asUser("alice")
		running := cursortest.NewClient(one.url, hc, newRequestID())
		s := subscribe(running)
		Expect(running.Send(ctx, cursortest.RunRequest("conv-drain", "byok-model", "hello"))).To(Succeed())
		Expect(running.Send(ctx, label(1))).To(Succeed())
		Eventually(s.Texts).WithTimeout(10 * time.Second).Should(Equal([]string{"part-1"}))

		drained := make(chan error, 1)
		go func() { drained <- one.srv.Drain(ctx) }()
		Consistently(drained).WithTimeout(300*time.Millisecond).ShouldNot(Receive(), "a turn still runs")

		By("refusing a new run's stream with unavailable")
		fresh := cursortest.NewClient(one.url, hc, newRequestID())
		refused := subscribe(fresh)
		Eventually(refused.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
		Expect(refused.EndError()).To(HaveConnectCode(connect.CodeUnavailable))
		Expect(fresh.Send(ctx, cursortest.RunRequest("conv-drain-2", "byok-model", "hello"))).To(Succeed(),
			"an opening append is forwarded to whichever replica takes the run")

		By("the client's stream going to the other replica instead, which runs the turn")
		fresh.Rebind(two.url, hc)
		elsewhere := subscribe(fresh)
		Expect(fresh.Send(ctx, label(2))).To(Succeed())
		Eventually(elsewhere.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
		Expect(elsewhere.EndError()).To(BeNil())
		Expect(elsewhere.Texts()).To(Equal([]string{"part-2"}))
		Expect(two.handler.Turns()).To(HaveLen(1))

		By("letting the running turn finish before the drain returns")
		Expect(running.Send(ctx, label(2))).To(Succeed())
		Eventually(drained).WithTimeout(10 * time.Second).Should(Receive(BeNil()))
		Eventually(s.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
		Expect(s.EndError()).To(BeNil())
		Expect(s.Texts()).To(Equal([]string{"part-1", "part-2"}))
	})
})
