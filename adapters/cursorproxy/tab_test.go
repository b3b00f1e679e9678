package cursorproxy_test

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/upstream"
	"keygate/domain/identity"
	"keygate/domain/tab"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

var _ = Describe("Cursor Tab through the proxy", func() {
	var (
		ctx  context.Context
		pred *tabPredictor
		auth bool
		e    *env
	)

	BeforeEach(func() {
		ctx = context.Background()
		pred = &tabPredictor{model: "tab-model", started: make(chan struct{}, 8), cancelled: make(chan struct{})}
		auth = false
	})

	JustBeforeEach(func() {
		var fwd *upstream.Forwarder
		server := cursor.New(cursortest.NewScriptedRunHandler(cursortest.Reply("hi")), cursor.Options{
			Transport: cursortest.FastTimings(),
			Upstream:  lazyRoundTrip(func() *upstream.Forwarder { return fwd }),
			Tab:       pred,
		}, zap.NewNop())
		DeferCleanup(func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = server.Close(sctx)
		})
		opts := envOptions{
			Routes: server.Routes(),
			// Cursor's own Tab: one text, then done_stream.
			Cursor: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, h := aiserverv1connect.NewAiServiceHandler(cursorTab{})
				h.ServeHTTP(w, r)
			}),
		}
		if auth {
			opts.Auth = tokens{users: map[string]string{"tok-ada": "ada"}}
		}
		e = startEnv(opts)
		fwd = e.Forwarder
	})

	DescribeTable("serves a suggestion to the simulated editor over HTTP/1.1, and its fate",
		func(json bool) {
			c := cursortest.NewTabClient("https://api2.cursor.sh", e.Client(nil), "main.go", "package main\n\nfunc main() {\n}", json)
			cfg, err := c.Config(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(cfg.GetIsOn()).To(BeTrue())
			// The client sends its StreamCpp there: back through the proxy.
			Expect(cfg.GetCppUrl()).To(Equal("https://api2.cursor.sh"))

			pred.script = []tab.Event{
				{Kind: tab.EventBeginEdit, Range: tab.Range{StartLine: 3, EndLine: 4}},
				{Kind: tab.EventText, Text: "func main() {\n"},
				{Kind: tab.EventText, Text: "\tprintln(\"hi\")\n}"},
				{Kind: tab.EventDoneEdit},
			}
			c.MoveTo(2, 13)
			s, err := c.Suggest(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(s.DoneStream).To(BeTrue())
			Expect(c.Accept(ctx, s)).To(Succeed())
			Expect(c.Contents()).To(Equal("package main\n\nfunc main() {\n\tprintln(\"hi\")\n}"))
			Expect(pred.Fates()).To(Equal([]string{s.RequestID + " accepted"}))
		},
		Entry("application/connect+proto", false),
		Entry("application/connect+json", true),
	)

	It("cancels the prediction when the editor aborts the stream", func() {
		pred.hold = true
		c := cursortest.NewTabClient("https://api2.cursor.sh", e.Client(nil), "main.go", "package main", false)
		s := c.Pause(ctx)
		Eventually(pred.started).Should(Receive())
		c.Type("x")
		// How fast is measured by kgbench (section Cursor Tab), never here:
		// a loaded CI machine must not fail a spec on timing.
		Eventually(pred.cancelled, 5*time.Second, time.Millisecond).Should(BeClosed())
		Eventually(s.Done()).Should(BeClosed())
	})

	It("relays Tab to Cursor while Keygate serves no Tab model", func() {
		pred.SetModel("")
		c := cursortest.NewTabClient("https://api2.cursor.sh", e.Client(nil), "main.go", "package main", true)
		s, err := c.Suggest(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Messages[0].GetText()).To(Equal("from cursor"))
		Expect(pred.Started()).To(BeZero())
	})

	Context("in company mode", func() {
		BeforeEach(func() { auth = true })

		It("refuses a Tab request without a gateway token, and serves the member's with their identity", func() {
			c := cursortest.NewTabClient("https://api2.cursor.sh", e.Client(nil), "main.go", "package main", false)
			_, err := c.Suggest(ctx)
			Expect(err).To(MatchError(ContainSubstring("Proxy Authentication Required")))
			Expect(pred.Started()).To(BeZero())

			c = cursortest.NewTabClient("https://api2.cursor.sh", e.Client(url.UserPassword("cursor", "tok-ada")), "main.go", "package main", false)
			_, err = c.Suggest(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(pred.Users()).To(Equal([]string{"ada"}))
		})
	})
})

// tabPredictor is a scripted Tab use case that records who asked.
type tabPredictor struct {
	mu        sync.Mutex
	model     string
	script    []tab.Event
	hold      bool
	users     []string
	fates     []string
	count     int
	started   chan struct{}
	cancelled chan struct{}
}

func (p *tabPredictor) SetModel(m string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.model = m
}

func (p *tabPredictor) Model(context.Context) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.model, nil
}

func (p *tabPredictor) Predict(ctx context.Context, _ tab.Input, emit func(tab.Event) error) error {
	id, _ := identity.FromContext(ctx)
	p.mu.Lock()
	p.users = append(p.users, id.UserID)
	p.count++
	script, hold := p.script, p.hold
	p.mu.Unlock()
	p.started <- struct{}{}
	for _, ev := range script {
		if err := emit(ev); err != nil {
			return err
		}
	}
	if hold {
		select {
		case <-ctx.Done():
			close(p.cancelled)
			return ctx.Err()
		case <-time.After(5 * time.Second):
			return context.DeadlineExceeded
		}
	}
	return nil
}

func (p *tabPredictor) RecordFate(_ context.Context, requestID string, f tab.Fate) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.fates = append(p.fates, requestID+" "+f.String())
	return nil
}

func (p *tabPredictor) Fates() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.fates...)
}

func (p *tabPredictor) Users() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.users...)
}

func (p *tabPredictor) Started() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.count
}

// cursorTab is Cursor's own Tab service.
type cursorTab struct {
	aiserverv1connect.UnimplementedAiServiceHandler
}

func (cursorTab) StreamCpp(_ context.Context, _ *connect.Request[aiserverv1.StreamCppRequest], s *connect.ServerStream[aiserverv1.StreamCppResponse]) error {
	if err := s.Send(&aiserverv1.StreamCppResponse{Text: "from cursor"}); err != nil {
		return err
	}
	return s.Send(&aiserverv1.StreamCppResponse{DoneStream: proto.Bool(true)})
}
