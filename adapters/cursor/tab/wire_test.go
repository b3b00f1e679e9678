package tab_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	cursortab "keygate/adapters/cursor/tab"
	"keygate/adapters/upstream"
	"keygate/adapters/upstream/upstreamtest"
	"keygate/domain/budget"
	"keygate/domain/tab"
	"keygate/domain/team"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

const file = "package main\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}"

var _ = Describe("Cursor Tab on the wire", func() {
	var (
		ctx        context.Context
		pred       *fakePredictor
		cursorTab  *fakeCursorTab
		noUpstream bool
		env        *cursortest.Env
	)

	BeforeEach(func() {
		ctx = context.Background()
		pred = newFakePredictor("tab-model")
		cursorTab = &fakeCursorTab{}
		noUpstream = false
	})

	JustBeforeEach(func() {
		srv, err := upstreamtest.NewFakeCursor(cursorTab.routes())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
		fwd, err := upstream.New(upstream.Options{
			Proxy: upstream.ProxyDirect, RootCAs: srv.Pool,
			Dial: upstreamtest.Dialer(map[string]string{"api2.cursor.sh:443": srv.Addr}),
		}, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(fwd.CloseIdleConnections)
		opts := cursor.Options{Transport: cursortest.FastTimings(), Upstream: fwd, Tab: pred}
		if noUpstream {
			opts.Upstream = nil
		}
		env = cursortest.Serve(cursortest.NewScriptedRunHandler(cursortest.Reply("hi")), opts)
		DeferCleanup(env.Close)
	})

	client := func(json bool) *cursortest.TabClient {
		return cursortest.NewTabClient(env.URL, env.HTTP1, "main.go", file, json)
	}

	DescribeTable("streams the edits in order, which applied give the predicted file",
		func(json bool) {
			pred.script = append(edit(4, 4, "\tfmt.Println(", "\"hello\")"), edit(3, 2, "import \"fmt\"", "\n")...)
			c := client(json)
			c.MoveTo(3, 13)
			c.Type("l")
			s, err := c.Suggest(ctx)
			Expect(err).NotTo(HaveOccurred())

			Expect(s.Messages[0].GetModelInfo().GetIsMultidiffModel()).To(BeTrue())
			Expect(s.Messages[len(s.Messages)-1].GetDoneStream()).To(BeTrue())
			Expect(s.Complete).To(Equal(2))
			Expect(s.Edits).To(Equal([]cursortest.TabEdit{
				{Range: tab.Range{StartLine: 4, EndLine: 4}, Text: "\tfmt.Println(\"hello\")"},
				{Range: tab.Range{StartLine: 3, EndLine: 2}, Text: "import \"fmt\"\n"},
			}))
			// begin_edit, then the range, then the text: the client reads
			// the text against the range it was told.
			Expect(s.Messages[1].GetBeginEdit()).To(BeTrue())
			Expect(s.Messages[2].GetRangeToReplace().GetStartLineNumber()).To(BeEquivalentTo(4))
			Expect(s.Messages[2].ShouldRemoveLeadingEol).To(BeNil())
			Expect(s.Messages[3].GetText()).To(Equal("\tfmt.Println("))

			Expect(c.Accept(ctx, s)).To(Succeed())
			Expect(c.Contents()).To(Equal("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}"))
			Expect(pred.Fates()).To(Equal([]fate{{s.RequestID, tab.FateAccepted}}))

			in := pred.Inputs()[0]
			Expect(in.RequestID).To(Equal(s.RequestID))
			Expect(in.Path).To(Equal("main.go"))
			Expect(in.Contents).To(Equal(strings.Replace(file, "Println(", "Println(l", 1)))
			Expect([2]int{in.Line, in.Column}).To(Equal([2]int{3, 14}))
			Expect(in.LanguageID).To(Equal("go"))
			Expect(in.LineEnding).To(Equal("\n"))
			Expect(in.Workspace).To(Equal("ws-1"))
			Expect(in.Recent).To(Equal([]tab.FileDiff{{Path: "main.go", Diff: "4+|l"}}))
		},
		Entry("application/connect+proto", false),
		Entry("application/connect+json", true),
	)

	It("sends the jump after the edits, and done_stream last", func() {
		pred.script = append(edit(1, 1, "package app"), tab.Event{Kind: tab.EventJump, Jump: &tab.Jump{Path: "util.go", Line: 7, Expected: "func x() {"}})
		s, err := client(false).Suggest(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Jump.GetRelativePath()).To(Equal("util.go"))
		Expect(s.Jump.GetLineNumberOneIndexed()).To(BeEquivalentTo(7))
		Expect(s.Jump.GetExpectedContent()).To(Equal("func x() {"))
		n := len(s.Messages)
		Expect(s.Messages[n-2].GetCursorPredictionTarget()).NotTo(BeNil())
		Expect(s.Messages[n-1].GetDoneStream()).To(BeTrue())
	})

	It("cancels the Predictor's context when the client aborts the stream", func() {
		pred.script = edit(1, 1, "package ")
		pred.hold = true
		c := client(false)
		s := c.Pause(ctx)
		Eventually(pred.started).Should(Receive())
		c.Type("x") // the user types on: the editor aborts the stream
		// How fast is measured by kgbench (section Cursor Tab), never here:
		// a loaded CI machine must not fail a spec on timing.
		Eventually(pred.cancelled, 5*time.Second, time.Millisecond).Should(BeClosed())
		Eventually(s.Done()).Should(BeClosed())
		Expect(s.Err).To(MatchError(context.Canceled))
	})

	It("ends a failed suggestion quietly with done_stream, and a budget refusal with its message", func() {
		pred.err = errModel
		s, err := client(false).Suggest(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.DoneStream).To(BeTrue())

		pred.err = fmt.Errorf("tab: %w", &budget.ExceededError{Limit: budget.LimitRequestsPerMinute, Used: 60, Max: 60, ResetsAt: time.Now()})
		s, err = client(true).Suggest(ctx)
		Expect(connect.CodeOf(err)).To(Equal(connect.CodeResourceExhausted))
		Expect(err.Error()).To(ContainSubstring("Keygate limit reached"))
		Expect(s.DoneStream).To(BeFalse())

		pred.err = fmt.Errorf("tab: %w", team.Refusal("fim"))
		_, err = client(true).Suggest(ctx)
		Expect(connect.CodeOf(err)).To(Equal(connect.CodePermissionDenied))
		Expect(err.Error()).To(ContainSubstring("not on your team's model list"))
	})

	It("reads a current file larger than the unary bound, and refuses one over MaxBody", func() {
		big := strings.Repeat("// a long generated line of code\n", (2<<20)/33)
		c := cursortest.NewTabClient(env.URL, env.HTTP1, "gen.go", big, false)
		_, err := c.Suggest(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(pred.Inputs()[0].Contents).To(HaveLen(len(big)))

		huge := cursortest.NewTabClient(env.URL, env.HTTP1, "gen.go", big+strings.Repeat("x", cursortab.MaxBody), false)
		_, err = huge.Suggest(ctx)
		Expect(connect.CodeOf(err)).To(Equal(connect.CodeResourceExhausted))
		Expect(pred.Inputs()).To(HaveLen(1))
	})

	It("reads a gzip-compressed request", func() {
		pred.script = edit(1, 1, "package app")
		ai := aiserverv1connect.NewAiServiceClient(env.HTTP1, env.URL, connect.WithSendGzip())
		stream, err := ai.StreamCpp(ctx, connect.NewRequest(cursortest.NewTabClient(env.URL, env.HTTP1, "main.go", file, false).Request()))
		Expect(err).NotTo(HaveOccurred())
		var texts []string
		for stream.Receive() {
			if t := stream.Msg().GetText(); t != "" {
				texts = append(texts, t)
			}
		}
		Expect(stream.Err()).NotTo(HaveOccurred())
		Expect(texts).To(Equal([]string{"package app"}))
		Expect(pred.Inputs()[0].Contents).To(Equal(file))
	})

	DescribeTable("answers CppConfig locally, naming the origin the request came in on",
		func(json bool) {
			cfg, err := client(json).Config(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(cfg.GetIsOn()).To(BeTrue())
			Expect(cfg.GetIsGhostText()).To(BeTrue())
			Expect(cfg.GetCppUrl()).To(Equal(env.URL))
			Expect(cfg.GetGeoCppBackendUrl()).To(Equal(env.URL))
			Expect(cfg.GetClientDebounceDurationMillis()).To(BeEquivalentTo(50))
			Expect(cfg.GetHeuristics()).To(ContainElement(aiserverv1.CppConfigResponse_HEURISTIC_SUGGESTING_RECENTLY_REJECTED_EDIT))

			// Behind the proxy the origin is the intercepted host's.
			req := connect.NewRequest(&aiserverv1.CppConfigRequest{})
			req.Header().Set(upstream.HeaderUpstreamURL, "https://api2.cursor.sh/aiserver.v1.AiService/CppConfig")
			resp, err := client(json).AI().CppConfig(ctx, req)
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Msg.GetCppUrl()).To(Equal("https://api2.cursor.sh"))
			Expect(cursorTab.Paths()).To(BeEmpty())
		},
		Entry("application/proto", false),
		Entry("application/json", true),
	)

	DescribeTable("answers the companions with 200 and a message the client decodes",
		func(json bool) {
			c := client(json)
			st, err := c.AI().CppEditHistoryStatus(ctx, connect.NewRequest(&aiserverv1.CppEditHistoryStatusRequest{}))
			Expect(err).NotTo(HaveOccurred())
			Expect(st.Msg.GetOn()).To(BeFalse())
			app, err := c.AI().CppAppend(ctx, connect.NewRequest(&aiserverv1.CppAppendRequest{Changes: []byte("edit")}))
			Expect(err).NotTo(HaveOccurred())
			Expect(app.Msg.GetSuccess()).To(BeTrue())
			hist, err := c.AI().CppEditHistoryAppend(ctx, connect.NewRequest(&aiserverv1.EditHistoryAppendChangesRequest{SessionId: "s"}))
			Expect(err).NotTo(HaveOccurred())
			Expect(hist.Msg.GetSuccess()).To(BeTrue())
			_, err = c.AI().RefreshTabContext(ctx, connect.NewRequest(&aiserverv1.RefreshTabContextRequest{CurrentFile: c.Request().GetCurrentFile()}))
			Expect(err).NotTo(HaveOccurred())
			_, err = c.AI().GetCppEditClassification(ctx, connect.NewRequest(&aiserverv1.GetCppEditClassificationRequest{CppRequest: c.Request()}))
			Expect(err).NotTo(HaveOccurred())
			next, err := c.AI().StreamNextCursorPrediction(ctx, connect.NewRequest(&aiserverv1.StreamNextCursorPredictionRequest{}))
			Expect(err).NotTo(HaveOccurred())
			Expect(next.Receive()).To(BeFalse())
			Expect(next.Err()).NotTo(HaveOccurred())
			models, err := c.Cpp().AvailableModels(ctx, connect.NewRequest(&aiserverv1.AvailableCppModelsRequest{}))
			Expect(err).NotTo(HaveOccurred())
			Expect(models.Msg.GetModels()).To(Equal([]string{"tab-model"}))
			Expect(models.Msg.GetDefaultModel()).To(Equal("tab-model"))
			Expect(cursorTab.Paths()).To(BeEmpty())
		},
		Entry("application/proto", false),
		Entry("application/json", true),
	)

	It("hands each fate to RecordFate with the suggestion's request id", func() {
		c := client(false)
		s, err := c.Suggest(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Reject(ctx, s)).To(Succeed())
		Expect(c.Fate(ctx, "req-partial", aiserverv1.CppFate_CPP_FATE_PARTIAL_ACCEPT)).To(Succeed())
		Expect(c.Fate(ctx, "req-unknown", aiserverv1.CppFate_CPP_FATE_UNSPECIFIED)).To(Succeed())
		Expect(pred.Fates()).To(Equal([]fate{{s.RequestID, tab.FateRejected}, {"req-partial", tab.FatePartiallyAccepted}}))
	})

	Context("while the Predictor names no model", func() {
		BeforeEach(func() { pred.SetModel("") })

		It("relays every Tab route to Cursor, deciding per request", func() {
			c := client(false)
			cfg, err := c.Config(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(cfg.GetCppUrl()).To(Equal("https://us-only.cursor.sh"))
			s, err := c.Suggest(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(s.Messages[0].GetText()).To(Equal("from cursor"))
			Expect(pred.Inputs()).To(BeEmpty())
			Expect(cursorTab.Paths()).To(Equal([]string{aiserverv1connect.AiServiceCppConfigProcedure, aiserverv1connect.AiServiceStreamCppProcedure}))

			pred.SetModel("tab-model")
			s, err = c.Suggest(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(s.Messages[0].GetModelInfo()).NotTo(BeNil())
			Expect(pred.Inputs()).To(HaveLen(1))
			Expect(cursorTab.Paths()).To(HaveLen(2))
		})

		Context("and there is no upstream", func() {
			BeforeEach(func() { noUpstream = true })

			It("answers that Tab is off, and StreamCpp with no suggestion", func() {
				c := client(true)
				cfg, err := c.Config(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(cfg.IsOn).To(Equal(proto.Bool(false)))
				s, err := c.Suggest(ctx)
				Expect(err).NotTo(HaveOccurred())
				Expect(s.Messages).To(HaveLen(1))
				Expect(s.DoneStream).To(BeTrue())
				Expect(pred.Inputs()).To(BeEmpty())
			})
		})
	})
})

var _ = Describe("Without a Predictor", func() {
	It("mounts no Tab route, so they go to Cursor as before", func() {
		srv := cursor.New(cursortest.NewScriptedRunHandler(cursortest.Reply("hi")), cursor.Options{}, zap.NewNop())
		for path := range srv.Routes() {
			Expect(path).NotTo(Or(ContainSubstring("Cpp"), ContainSubstring("Tab")))
		}
		with := cursor.New(cursortest.NewScriptedRunHandler(cursortest.Reply("hi")), cursor.Options{Tab: newFakePredictor("m")}, zap.NewNop())
		Expect(with.Routes()).To(HaveKey(aiserverv1connect.AiServiceStreamCppProcedure))
		Expect(with.Routes()).To(HaveKey(aiserverv1connect.CppServiceRecordCppFateProcedure))
		Expect(with.Routes()).To(HaveLen(len(srv.Routes()) + 10))
	})
})
