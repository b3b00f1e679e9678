package cmdk_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/cursor"
	cursorcmdk "keygate/adapters/cursor/cmdk"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/upstream"
	"keygate/adapters/upstream/upstreamtest"
	"keygate/domain/budget"
	"keygate/domain/cmdk"
	"keygate/domain/team"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
)

const file = "package main\n\nfunc add(a, b int) int {\n\treturn 0\n}\n\nfunc main() {}"

var _ = Describe("Inline edits and Git messages on the wire", func() {
	var (
		ctx        context.Context
		ed         *fakeEditor
		cur        *fakeCursor
		noUpstream bool
		env        *cursortest.Env
	)

	BeforeEach(func() {
		ctx = context.Background()
		ed, cur, noUpstream = newFakeEditor(), &fakeCursor{}, false
	})

	JustBeforeEach(func() {
		srv, err := upstreamtest.NewFakeCursor(cur.routes())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(srv.Close)
		fwd, err := upstream.New(upstream.Options{
			Proxy: upstream.ProxyDirect, RootCAs: srv.Pool,
			Dial: upstreamtest.Dialer(map[string]string{"api2.cursor.sh:443": srv.Addr}),
		}, zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(fwd.CloseIdleConnections)
		opts := cursor.Options{Transport: cursortest.FastTimings(), Upstream: fwd, CmdK: ed}
		if noUpstream {
			opts.Upstream = nil
		}
		env = cursortest.Serve(cursortest.NewScriptedRunHandler(cursortest.Reply("hi")), opts)
		DeferCleanup(env.Close)
	})

	client := func(json bool) *cursortest.CmdKClient {
		return cursortest.NewCmdKClient(env.URL, env.HTTP1, "calc.go", file, json)
	}

	DescribeTable("streams an inline edit into the selection after asking for the hashed context in full",
		func(json bool) {
			ed.script = []string{"\treturn a + b\n"}
			c := client(json)
			got, err := c.Edit(ctx, 4, 5, "return the sum")
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Asked).To(Equal(2))
			Expect(c.Contents()).To(Equal(strings.Replace(file, "return 0", "return a + b", 1)))

			Expect(got.Messages).To(HaveLen(3))
			start := got.Messages[0].GetEditStart()
			Expect(start.GetStartLineNumber()).To(BeEquivalentTo(4))
			Expect(start.GetMaxEndLineNumberExclusive()).To(BeEquivalentTo(5))
			Expect(start.GetFilePath()).To(Equal("calc.go"))
			Expect(got.Messages[1].GetEditStream().GetText()).To(Equal("\treturn a + b\n"))
			Expect(got.Messages[2].GetEditEnd().GetEndLineNumberExclusive()).To(BeEquivalentTo(5))

			in := ed.Edits()
			Expect(in).To(HaveLen(1))
			Expect(in[0]).To(Equal(cmdk.Input{RequestID: got.RequestID, Path: "calc.go", Instruction: "return the sum", Start: 4,
				Selection: []string{"\treturn 0"}, Before: []string{"package main", "", "func add(a, b int) int {"}, After: []string{"}", "", "func main() {}"}, TotalLines: 7}))
		},
		Entry("connect+proto", false),
		Entry("connect+json", true),
	)

	It("sends edit_start before the model's first line, and each line as it comes", func() {
		ed.script = []string{"a\n", "b\n"}
		ed.hold = true
		c := client(false)
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		st, err := c.CmdK().StreamCmdK(cctx, connect.NewRequest(c.Request(4, 5, "x", false)))
		Expect(err).NotTo(HaveOccurred())
		var got []string
		for len(got) < 3 && st.Receive() {
			rr := st.Msg().GetRealResponse()
			got = append(got, fmt.Sprintf("%v %s", rr.GetEditStart() != nil, rr.GetEditStream().GetText()))
		}
		Expect(got).To(Equal([]string{"true ", "false a\n", "false b\n"}))
		cancel()
		Eventually(ed.cancelled, 50*time.Millisecond, time.Millisecond).Should(BeClosed())
	})

	It("answers a chat-mode question with chat text and no edit", func() {
		ed.script = []string{"It returns ", "zero."}
		got, err := client(true).Ask(ctx, 4, 5, "what does this return?")
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Chat).To(Equal("It returns zero."))
		Expect(got.End).To(BeZero())
		Expect(ed.Edits()[0].Chat).To(BeTrue())
	})

	It("reports failures the user must see: a budget, a refusal, a failed call", func() {
		ed.err = fmt.Errorf("cmdk: %w", &budget.ExceededError{Limit: budget.LimitRequestsPerMinute, Used: 60, Max: 60, ResetsAt: time.Now()})
		_, err := client(false).Edit(ctx, 4, 5, "x")
		Expect(connect.CodeOf(err)).To(Equal(connect.CodeResourceExhausted))
		Expect(err.Error()).To(ContainSubstring("Keygate limit reached"))
		ed.err = fmt.Errorf("cmdk: %w", team.Refusal("opus"))
		_, err = client(false).Edit(ctx, 4, 5, "x")
		Expect(connect.CodeOf(err)).To(Equal(connect.CodePermissionDenied))
		Expect(err.Error()).To(ContainSubstring("not on your team's model list"))
		ed.err = cmdk.ErrSelectionTooLarge
		_, err = client(true).Edit(ctx, 4, 5, "x")
		Expect(connect.CodeOf(err)).To(Equal(connect.CodeInvalidArgument))
		ed.err = fmt.Errorf("boom")
		_, err = client(false).CommitMessage(ctx, []string{"+x"}, nil)
		Expect(connect.CodeOf(err)).To(Equal(connect.CodeUnavailable))
	})

	It("refuses a body over MaxBody before the Editor sees it", func() {
		_, err := client(false).CommitMessage(ctx, []string{strings.Repeat("+x\n", cursorcmdk.MaxBody/3+1)}, nil)
		Expect(connect.CodeOf(err)).To(Equal(connect.CodeResourceExhausted))
		Expect(ed.Asked()).To(BeZero())
	})

	DescribeTable("answers the terminal, commit messages and branch names",
		func(json bool) {
			c := client(json)
			ed.answer = "ls *.go"
			cmd, err := c.Terminal(ctx, "list go files", "$ pwd\n/work\n")
			Expect(err).NotTo(HaveOccurred())
			Expect(cmd).To(Equal("ls *.go"))
			Expect(ed.terminals[0]).To(Equal(cmdk.TerminalInput{RequestID: ed.terminals[0].RequestID, Instruction: "list go files", History: "$ pwd\n/work\n", Cwd: "/work"}))

			ed.answer = "api: handle nil"
			msg, err := c.CommitMessage(ctx, []string{"diff a", "diff b"}, []string{"ui: add card", "db: index"})
			Expect(err).NotTo(HaveOccurred())
			Expect(msg).To(Equal("api: handle nil"))
			Expect(ed.commits[0].Diffs).To(Equal([]string{"diff a", "diff b"}))
			Expect(ed.commits[0].Recent).To(Equal([]string{"ui: add card", "db: index"}))

			ed.answer = "fix/nil-bodies"
			name, err := c.BranchName(ctx, "diff a", "handle nil bodies")
			Expect(err).NotTo(HaveOccurred())
			Expect(name).To(Equal("fix/nil-bodies"))
			Expect(ed.branches[0].Diff).To(Equal("diff a"))
			Expect(ed.branches[0].Context).To(Equal("handle nil bodies"))
		},
		Entry("connect+proto", false),
		Entry("connect+json", true),
	)

	It("answers the companions harmlessly, asking for hashed context in full", func() {
		c := client(false)
		rr, err := c.CmdK().RerankCmdKContext(ctx, connect.NewRequest(&aiserverv1.RerankCmdKContextRequest{ContextItems: []*aiserverv1.PotentiallyCachedContextItem{
			{Item: &aiserverv1.PotentiallyCachedContextItem_ContextItemHash{ContextItemHash: "h1"}}}}))
		Expect(err).NotTo(HaveOccurred())
		Expect(rr.Msg.GetMissingContextItems().GetMissingContextItemHashes()).To(Equal([]string{"h1"}))
		Expect(rr.Msg.GetDidCall()).To(BeFalse())
		_, err = c.CmdK().RerankTerminalCmdKContext(ctx, connect.NewRequest(&aiserverv1.RerankTerminalCmdKContextRequest{}))
		Expect(err).NotTo(HaveOccurred())
		st, err := c.CmdK().GetRelevantChunks(ctx, connect.NewRequest(&aiserverv1.GetRelevantChunksRequest{}))
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Receive()).To(BeFalse())
		Expect(st.Err()).NotTo(HaveOccurred())
		_, err = c.AI().ReportCmdKFate(ctx, connect.NewRequest(&aiserverv1.ReportCmdKFateRequest{RequestId: "r", Fate: aiserverv1.ReportCmdKFateRequest_FATE_ACCEPTED}))
		Expect(err).NotTo(HaveOccurred())
		Expect(cur.Paths()).To(BeEmpty())
	})

	Context("while a feature has no model", func() {
		BeforeEach(func() { ed.SetModels("", "commit-model") })

		It("relays that feature's routes to Cursor and serves the other, deciding per request", func() {
			c := client(false)
			got, err := c.Ask(ctx, 4, 5, "what?")
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Chat).To(Equal("from cursor"))
			ed.answer = "mine"
			msg, err := c.CommitMessage(ctx, []string{"+x"}, nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(msg).To(Equal("mine"))
			Expect(cur.Paths()).To(Equal([]string{aiserverv1connect.CmdKServiceStreamCmdKProcedure}))

			ed.SetModels("edit-model", "")
			msg, err = c.CommitMessage(ctx, []string{"+x"}, nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(msg).To(Equal("from cursor"))
			ed.script = []string{"local\n"}
			got, err = c.Edit(ctx, 4, 5, "x")
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Text).To(Equal("local\n"))
			Expect(cur.Paths()).To(HaveLen(2))
		})

		Context("and there is no upstream", func() {
			BeforeEach(func() { noUpstream = true })

			It("answers that the feature is unavailable", func() {
				_, err := client(true).Edit(ctx, 4, 5, "x")
				Expect(connect.CodeOf(err)).To(Equal(connect.CodeUnavailable))
				Expect(ed.Edits()).To(BeEmpty())
			})
		})
	})
})

var _ = Describe("Without an Editor", func() {
	It("mounts none of these routes, so they go to Cursor as before", func() {
		srv := cursor.New(cursortest.NewScriptedRunHandler(cursortest.Reply("hi")), cursor.Options{}, zap.NewNop())
		Expect(srv.Routes()).NotTo(HaveKey(aiserverv1connect.CmdKServiceStreamCmdKProcedure))
		Expect(srv.Routes()).NotTo(HaveKey(aiserverv1connect.AiServiceWriteGitCommitMessageProcedure))
		with := cursor.New(cursortest.NewScriptedRunHandler(cursortest.Reply("hi")), cursor.Options{CmdK: newFakeEditor()}, zap.NewNop())
		Expect(with.Routes()).To(HaveLen(len(srv.Routes()) + 8))
	})
})
