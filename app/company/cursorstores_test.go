package company_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"

	"keygate/adapters/sqlite"
	"keygate/app/company"
	"keygate/domain/access"
	"keygate/domain/compaction"
	"keygate/domain/conversation"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/domain/toolround"
	"keygate/ports"
)

// The stores of the Cursor path, each tried by nobody, by bob against
// ada's objects, and by ada herself.
var _ = Describe("Tenancy.CursorStores", func() {
	var (
		cs       company.CursorStores
		adaHead  conversation.Checkpoint
		adaRun   = conversation.RunID("req-ada", 1)
		adaRound string
		data     = []byte("ada's screenshot")
		as       = func(user string) context.Context {
			if user == "" {
				return context.Background()
			}
			return identity.NewContext(context.Background(), identity.Identity{UserID: user})
		}
	)
	BeforeEach(func() {
		db, err := sqlite.Open(context.Background(), GinkgoT().TempDir(), zap.NewNop())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(db.Close)
		st := sqlite.NewStore(db)
		cs = company.NewTenancy(st.Owners()).CursorStores(st.Stores())

		ada := as("ada")
		adaHead, err = cs.Conversations.Open(ada, "conv-ada")
		Expect(err).NotTo(HaveOccurred())
		_, err = cs.Conversations.Open(as("bob"), "conv-bob")
		Expect(err).NotTo(HaveOccurred())
		_, err = cs.Runs.Claim(ada, ports.RunClaim{RunID: adaRun, ConversationID: "conv-ada", CursorRequestID: "req-ada", Kind: "root"})
		Expect(err).NotTo(HaveOccurred())
		round, err := toolround.New(conversation.ToolRoundID(adaRun, 0), llm.Assistant{Calls: []llm.ToolCall{{CallID: "c1", Name: "Read"}}})
		Expect(err).NotTo(HaveOccurred())
		Expect(cs.ToolRounds.Start(ada, adaRun, adaHead.ID(), round)).To(Succeed())
		adaRound = round.ID()
		adaHead, err = cs.Conversations.Head(ada, "conv-ada")
		Expect(err).NotTo(HaveOccurred())
		Expect(cs.Blobs.Put(ada, ports.BlobID(data), data)).To(Succeed())
		Expect(cs.ContextAnchors.PutContextAnchor(ada, "conv-ada", compaction.Anchor{ContextTokens: 100, MessageCount: 2})).To(Succeed())
	})

	// try is one store call on ada's objects, made by user; own is user's
	// own conversation, for calls that also name one of the caller's.
	DescribeTable("keeps each store to the caller on ctx",
		func(try func(ctx context.Context, own string) error, bobGets error) {
			Expect(try(as(""), "conv-none")).To(MatchError(access.ErrDenied), "a turn without a caller")
			if bobGets == nil {
				Expect(try(as("bob"), "conv-bob")).To(Succeed(), "this store has no owner to check")
			} else {
				Expect(try(as("bob"), "conv-bob")).To(MatchError(bobGets), "bob on ada's")
			}
			Expect(try(as("ada"), "conv-ada")).To(Succeed(), "ada on her own")
		},
		Entry("Conversations: opening ada's conversation", func(ctx context.Context, _ string) error {
			_, err := cs.Conversations.Open(ctx, "conv-ada")
			return err
		}, access.ErrDenied),
		Entry("Conversations: reading its head", func(ctx context.Context, _ string) error {
			_, err := cs.Conversations.Head(ctx, "conv-ada")
			return err
		}, access.ErrDenied),
		Entry("Conversations: loading its checkpoint", func(ctx context.Context, _ string) error {
			_, _, err := cs.Conversations.Load(ctx, adaHead.ID())
			return err
		}, access.ErrDenied),
		Entry("Conversations: writing to it", func(ctx context.Context, _ string) error {
			_, err := cs.Conversations.Apply(ctx, ports.Write{Change: conversation.AppendTo(adaHead, userText("u-1", "hi"))})
			return err
		}, access.ErrDenied),
		Entry("Runs: claiming a run on it", func(ctx context.Context, _ string) error {
			_, err := cs.Runs.Claim(ctx, ports.RunClaim{RunID: conversation.RunID("req-new", 2), ConversationID: "conv-ada",
				CursorRequestID: "req-new", Kind: "root"})
			return err
		}, access.ErrDenied),
		Entry("Runs: claiming a subagent run of one's own under ada's run", func(ctx context.Context, own string) error {
			_, err := cs.Runs.Claim(ctx, ports.RunClaim{RunID: conversation.RunID("req-sub", 3), ConversationID: own,
				CursorRequestID: "req-sub", Kind: "subagent", ParentRunID: adaRun, ParentToolCallID: "c_task"})
			return err
		}, access.ErrDenied),
		Entry("Runs: starting a turn on it in one write", func(ctx context.Context, _ string) error {
			_, err := cs.Runs.ClaimTurn(ctx, ports.RunClaim{RunID: conversation.RunID("req-turn", 4), ConversationID: "conv-ada",
				CursorRequestID: "req-turn", Kind: "root"}, []conversation.Message{userText("u-turn", "hi")})
			return err
		}, access.ErrDenied),
		Entry("Runs: starting a subagent turn of one's own under ada's run in one write", func(ctx context.Context, own string) error {
			_, err := cs.Runs.ClaimTurn(ctx, ports.RunClaim{RunID: conversation.RunID("req-subturn", 5), ConversationID: own,
				CursorRequestID: "req-subturn", Kind: "subagent", ParentRunID: adaRun, ParentToolCallID: "c_task"},
				[]conversation.Message{userText("u-subturn", "hi")})
			return err
		}, access.ErrDenied),
		Entry("Runs: counting a model call of ada's run", func(ctx context.Context, _ string) error {
			_, err := cs.Runs.BeginProviderCall(ctx, adaRun)
			return err
		}, access.ErrDenied),
		Entry("Runs: finishing ada's run", func(ctx context.Context, _ string) error {
			return cs.Runs.Finish(ctx, adaRun, ports.RunEnd{Status: ports.RunCompleted})
		}, access.ErrDenied),
		Entry("Runs: reading ada's run, ids and status only", func(ctx context.Context, _ string) error {
			_, err := cs.Runs.Run(ctx, adaRun)
			return err
		}, nil),
		Entry("Runs: reading the latest run of ada's request", func(ctx context.Context, _ string) error {
			_, err := cs.Runs.LatestForRequest(ctx, "req-ada")
			return err
		}, nil),
		Entry("ToolRounds: reading ada's round", func(ctx context.Context, _ string) error {
			_, err := cs.ToolRounds.Round(ctx, adaRound)
			return err
		}, ports.ErrNotFound),
		Entry("ToolRounds: committing a result to it", func(ctx context.Context, _ string) error {
			_, err := cs.ToolRounds.Commit(ctx, adaRun, adaRound, llm.ToolResult{CallID: "c1", Content: "done"})
			return err
		}, access.ErrDenied),
		Entry("ToolRounds: interrupting it", func(ctx context.Context, _ string) error {
			_, err := cs.ToolRounds.Interrupt(ctx, adaRun, adaRound)
			return err
		}, access.ErrDenied),
		Entry("ToolRounds: starting a round of ada's run", func(ctx context.Context, _ string) error {
			round, err := toolround.New(conversation.ToolRoundID(adaRun, 9), llm.Assistant{Calls: []llm.ToolCall{{CallID: "c9", Name: "Read"}}})
			Expect(err).NotTo(HaveOccurred())
			head, err := cs.Conversations.Head(as("ada"), "conv-ada")
			Expect(err).NotTo(HaveOccurred())
			return cs.ToolRounds.Start(ctx, adaRun, head.ID(), round)
		}, access.ErrDenied),
		Entry("Blobs: reading a blob by its content's hash", func(ctx context.Context, _ string) error {
			_, err := cs.Blobs.Get(ctx, ports.BlobID(data))
			return err
		}, nil),
		Entry("Blobs: storing one", func(ctx context.Context, _ string) error {
			return cs.Blobs.Put(ctx, ports.BlobID(data), data)
		}, nil),
		Entry("ContextAnchors: reading ada's conversation's", func(ctx context.Context, _ string) error {
			_, err := cs.ContextAnchors.ContextAnchor(ctx, "conv-ada")
			return err
		}, ports.ErrNotFound),
		Entry("ContextAnchors: replacing it", func(ctx context.Context, _ string) error {
			return cs.ContextAnchors.PutContextAnchor(ctx, "conv-ada", compaction.Anchor{})
		}, access.ErrDenied),
	)
})

func userText(id, s string) conversation.Message {
	m, err := conversation.NewText(id, llm.RoleUser, conversation.OriginRuntime, s)
	Expect(err).NotTo(HaveOccurred())
	return m
}
