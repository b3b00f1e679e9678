package porttest

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/access"
	"keygate/domain/callrecord"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/ports"
)

// ConsoleHarness is one open store under test for the ports the admin
// console reads: call lists, detail purging and conversation browsing.
type ConsoleHarness struct {
	Recorder      ports.CallRecorder
	Reader        ports.CallRecordReader
	Calls         ports.CallLister
	Purger        ports.DetailPurger
	Conversations ports.ConversationStore
	Lister        ports.ConversationLister
	// Owners, when set, records conversation owners the lister reports.
	Owners ports.OwnerStore
}

// ConsoleFactory opens a fresh store for one spec and registers its cleanup
// with DeferCleanup. Stores may share data between specs: every spec uses
// its own model, conversation and call ids.
type ConsoleFactory func() ConsoleHarness

// DescribeConsoleStores declares the contract suite of the console's ports
// for one implementation:
//
//	var _ = porttest.DescribeConsoleStores("SQLite", factory)
func DescribeConsoleStores(name string, open ConsoleFactory) bool {
	return Describe(name+" console stores", func() {
		describeCallLister(open)
		describeDetailPurger(open)
		describeConversationLister(open)
	})
}

// finished stores a completed call of model started at start, made
// outside any user's turn.
func finished(ctx context.Context, h ConsoleHarness, id, model, conv string, status callrecord.Status, start time.Time) {
	finishedFor(ctx, h, "", id, model, conv, status, start)
}

// finishedFor is finished for a call made in user's turn.
func finishedFor(ctx context.Context, h ConsoleHarness, user, id, model, conv string, status callrecord.Status, start time.Time) {
	finishedKind(ctx, h, "", user, id, model, conv, status, start)
}

// finishedKind is finishedFor for a call of kind.
func finishedKind(ctx context.Context, h ConsoleHarness, kind callrecord.Kind, user, id, model, conv string, status callrecord.Status, start time.Time) {
	rec := callrecord.Record{CallID: id, RunID: uniq("run"), ConversationID: conv, UserID: user, Kind: kind, Status: callrecord.StatusRunning,
		Model: callrecord.ModelSnapshot{ProviderKind: llm.ProviderOpenAIChat, ModelID: model}, Timing: callrecord.Timing{RequestStarted: start}}
	Expect(h.Recorder.Start(ctx, rec)).To(Succeed())
	rec.Status, rec.Timing.Finished = status, start.Add(time.Second)
	Expect(h.Recorder.Finish(ctx, rec)).To(Succeed())
}

func callIDs(recs []callrecord.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.CallID
	}
	return out
}

func describeCallLister(open ConsoleFactory) {
	Describe("CallLister", func() {
		var (
			h          ConsoleHarness
			ctx        context.Context
			model      string
			conv       string
			start      time.Time
			a, b, c    string
			tieA, tieB string
			user       string
			tab, test  string
		)
		BeforeEach(func() {
			h, ctx = open(), context.Background()
			model, conv = uniq("model"), uniq("conv")
			start = time.Now().UTC().Truncate(time.Millisecond).Add(-time.Hour)
			a, b, c = uniq("call-a"), uniq("call-b"), uniq("call-c")
			user = uniq("user")
			finishedFor(ctx, h, user, a, model, conv, callrecord.StatusCompleted, start)
			finished(ctx, h, b, model, uniq("conv"), callrecord.StatusError, start.Add(time.Minute))
			finishedFor(ctx, h, uniq("other-user"), c, model, conv, callrecord.StatusCompleted, start.Add(2*time.Minute))
			// Two calls that started at the same instant are ordered by id.
			tieA, tieB = model+"-tie-1", model+"-tie-2"
			finished(ctx, h, tieA, model+"-tie", conv, callrecord.StatusCompleted, start.Add(3*time.Minute))
			finished(ctx, h, tieB, model+"-tie", conv, callrecord.StatusCompleted, start.Add(3*time.Minute))
			// A Tab call and a connection test beside the Agent calls of
			// model (a, b and c name no kind).
			tab, test = uniq("call-tab"), uniq("call-test")
			finishedKind(ctx, h, callrecord.KindTab, user, tab, model, uniq("conv"), callrecord.StatusCompleted, start.Add(4*time.Minute))
			finishedKind(ctx, h, callrecord.KindTest, "", test, model, "", callrecord.StatusCompleted, start.Add(5*time.Minute))
		})

		It("lists newest first, bounded by Limit", func() {
			recs, err := h.Calls.CallRecords(ctx, ports.CallQuery{ModelID: model})
			Expect(err).NotTo(HaveOccurred())
			Expect(callIDs(recs)).To(Equal([]string{test, tab, c, b, a}))
			recs, err = h.Calls.CallRecords(ctx, ports.CallQuery{ModelID: model, Limit: 2})
			Expect(err).NotTo(HaveOccurred())
			Expect(callIDs(recs)).To(Equal([]string{test, tab}))
		})

		It("returns whole records, usage and timings included", func() {
			recs, err := h.Calls.CallRecords(ctx, ports.CallQuery{ModelID: model, Status: callrecord.StatusError})
			Expect(err).NotTo(HaveOccurred())
			Expect(recs).To(HaveLen(1))
			Expect(recs[0].Timing.Duration()).To(Equal(time.Second))
			Expect(recs[0].Model.ModelID).To(Equal(model))
			recs, err = h.Calls.CallRecords(ctx, ports.CallQuery{ModelID: model, Status: callrecord.StatusCompleted})
			Expect(err).NotTo(HaveOccurred())
			Expect(callIDs(recs)).To(Equal([]string{test, tab, c, a}))
			Expect(recs[1].UserID).To(Equal(user))
			Expect(recs[1].Kind).To(Equal(callrecord.KindTab))
			Expect(recs[0].Kind).To(Equal(callrecord.KindTest))
			Expect(recs[3].Kind).To(Equal(callrecord.KindAgent))
		})

		DescribeTable("filters",
			func(q func() ports.CallQuery, want func() []string) {
				recs, err := h.Calls.CallRecords(ctx, q())
				Expect(err).NotTo(HaveOccurred())
				Expect(callIDs(recs)).To(Equal(want()))
			},
			Entry("by status", func() ports.CallQuery { return ports.CallQuery{ModelID: model, Status: callrecord.StatusCompleted} },
				func() []string { return []string{test, tab, c, a} }),
			Entry("by kind: Tab", func() ports.CallQuery { return ports.CallQuery{ModelID: model, Kind: callrecord.KindTab} },
				func() []string { return []string{tab} }),
			Entry("by kind: Agent, which a record without a kind is", func() ports.CallQuery {
				return ports.CallQuery{ModelID: model, Kind: callrecord.KindAgent}
			},
				func() []string { return []string{c, b, a} }),
			Entry("by kind: connection test", func() ports.CallQuery { return ports.CallQuery{ModelID: model, Kind: callrecord.KindTest} },
				func() []string { return []string{test} }),
			Entry("by user", func() ports.CallQuery { return ports.CallQuery{ModelID: model, UserID: user} },
				func() []string { return []string{tab, a} }),
			Entry("by conversation", func() ports.CallQuery { return ports.CallQuery{ModelID: model, ConversationID: conv} },
				func() []string { return []string{c, a} }),
			Entry("by start time, Since included and Until excluded",
				func() ports.CallQuery {
					return ports.CallQuery{ModelID: model, Since: start.Add(time.Minute), Until: start.Add(2 * time.Minute)}
				},
				func() []string { return []string{b} }),
			Entry("after a cursor, continuing the order",
				func() ports.CallQuery {
					return ports.CallQuery{ModelID: model, After: &ports.CallCursor{Started: start.Add(time.Minute), CallID: b}}
				},
				func() []string { return []string{a} }),
			Entry("after a cursor between two calls that started together",
				func() ports.CallQuery {
					return ports.CallQuery{ModelID: model + "-tie", After: &ports.CallCursor{Started: start.Add(3 * time.Minute), CallID: tieB}}
				},
				func() []string { return []string{tieA} }),
		)

		It("returns the context's error when cancelled", func() {
			_, err := h.Calls.CallRecords(cancelled(ctx), ports.CallQuery{ModelID: model})
			Expect(err).To(MatchError(context.Canceled))
		})
	})
}

func describeDetailPurger(open ConsoleFactory) {
	Describe("DetailPurger", func() {
		It("deletes the details of calls started before the cutoff and keeps their records", func() {
			h, ctx := open(), context.Background()
			model := uniq("model")
			now := time.Now().UTC().Truncate(time.Millisecond)
			old, young := uniq("old"), uniq("young")
			for id, start := range map[string]time.Time{old: now.Add(-48 * time.Hour), young: now} {
				finished(ctx, h, id, model, uniq("conv"), callrecord.StatusCompleted, start)
				Expect(h.Recorder.Request(ctx, id, callrecord.Request{Method: "POST", Body: []byte("{}")})).To(Succeed())
				Expect(h.Recorder.Chunks(ctx, id, []callrecord.Chunk{{Seq: 0, Data: []byte("data: 1\n\n")}})).To(Succeed())
			}
			n, err := h.Purger.PurgeDetails(ctx, now.Add(-24*time.Hour))
			Expect(err).NotTo(HaveOccurred())
			Expect(n).To(BeNumerically(">=", 1))
			_, _, err = h.Reader.CallDetail(ctx, old)
			Expect(err).To(MatchError(ports.ErrNotFound))
			_, _, err = h.Reader.CallDetail(ctx, young)
			Expect(err).NotTo(HaveOccurred())
			_, err = h.Reader.CallRecord(ctx, old)
			Expect(err).NotTo(HaveOccurred())
			again, err := h.Purger.PurgeDetails(ctx, now.Add(-24*time.Hour))
			Expect(err).NotTo(HaveOccurred())
			Expect(again).To(BeZero())
		})
	})
}

func describeConversationLister(open ConsoleFactory) {
	Describe("ConversationLister", func() {
		var (
			h   ConsoleHarness
			ctx context.Context
		)
		BeforeEach(func() { h, ctx = open(), context.Background() })

		It("returns every checkpoint with each parent before its children, forks included", func() {
			conv := uniq("conv")
			root, err := h.Conversations.Open(ctx, conv)
			Expect(err).NotTo(HaveOccurred())
			asked := apply(ctx, h.Conversations, "", conversation.AppendTo(root, text(uniq("u"), "question")))
			answered := apply(ctx, h.Conversations, "", conversation.AppendTo(asked, assistant(uniq("a"), "answer")))
			edited := apply(ctx, h.Conversations, "", conversation.BranchFrom(answered.ID(), asked, text(uniq("u"), "other question")))
			cps, err := h.Lister.Checkpoints(ctx, conv)
			Expect(err).NotTo(HaveOccurred())
			seen := map[string]bool{}
			for _, c := range cps {
				Expect(c.ParentID == "" || seen[c.ParentID]).To(BeTrue(), "parent of %s listed after it", c.ID)
				seen[c.ID] = true
			}
			Expect(seen).To(HaveLen(4))
			Expect(seen).To(HaveKey(edited.ID()))
		})

		It("lists conversations most recently updated first, in pages", func() {
			// Written in id order, so the expected order holds whether the
			// store's clock tells the three updates apart or not.
			prefix := uniq("conv")
			ids := []string{prefix + "-a", prefix + "-b", prefix + "-c"}
			for _, id := range ids {
				root, err := h.Conversations.Open(ctx, id)
				Expect(err).NotTo(HaveOccurred())
				apply(ctx, h.Conversations, "", conversation.AppendTo(root, text(uniq("u"), "hi")))
			}
			first, err := h.Lister.Conversations(ctx, nil, 2)
			Expect(err).NotTo(HaveOccurred())
			Expect(first).To(HaveLen(2))
			Expect(first[0].ID).To(Equal(ids[2]))
			Expect(first[1].ID).To(Equal(ids[1]))
			rest, err := h.Lister.Conversations(ctx, &first[1], 1)
			Expect(err).NotTo(HaveOccurred())
			Expect(rest).To(HaveLen(1))
			Expect(rest[0].ID).To(Equal(ids[0]))
		})

		It("summarises each conversation: the first user-visible turn as its title, its turns, owner and latest model", func() {
			conv := uniq("conv")
			root, err := h.Conversations.Open(ctx, conv)
			Expect(err).NotTo(HaveOccurred())
			turn := func(id, event, s string) conversation.Message {
				m, err := conversation.NewMessage(conversation.MessageSpec{ID: id, Role: llm.RoleUser, Origin: conversation.OriginRuntime,
					RuntimeEventID: event, Parts: []llm.Part{{Kind: llm.PartText, Text: s}}})
				Expect(err).NotTo(HaveOccurred())
				return m
			}
			long := strings.Repeat("very ", 40)
			cp := apply(ctx, h.Conversations, "", conversation.AppendTo(root, text(uniq("ctx"), "<request context>"),
				turn(uniq("u"), uniq("ev"), "Why does\n  the build   fail? "+long)))
			cp = apply(ctx, h.Conversations, "", conversation.AppendTo(cp, assistant(uniq("a"), "answer")))
			apply(ctx, h.Conversations, "", conversation.AppendTo(cp, turn(uniq("u"), uniq("ev"), "and now?")))
			if h.Owners != nil {
				Expect(h.Owners.SetOwner(ctx, access.KindConversation, conv, "ada")).To(Succeed())
			}
			start := time.Now().UTC().Truncate(time.Millisecond)
			for i, model := range []string{"old-model", "new-model"} {
				rec := callrecord.Record{CallID: uniq("call"), RunID: uniq("run"), ConversationID: conv, Status: callrecord.StatusRunning,
					Model: callrecord.ModelSnapshot{ModelID: model}, Timing: callrecord.Timing{RequestStarted: start.Add(time.Duration(i) * time.Second)}}
				if i == 1 {
					rec.Route = callrecord.Route{ID: "alias-sonnet", Target: "m"}
				}
				Expect(h.Recorder.Start(ctx, rec)).To(Succeed())
			}
			list, err := h.Lister.Conversations(ctx, nil, 50)
			Expect(err).NotTo(HaveOccurred())
			var got *ports.ConversationSummary
			for i := range list {
				if list[i].ID == conv {
					got = &list[i]
				}
			}
			Expect(got).NotTo(BeNil())
			Expect(got.Title).To(HavePrefix("Why does the build fail? very very"))
			Expect([]rune(got.Title)).To(HaveLen(ports.MaxTitle))
			Expect(got.Turns).To(Equal(2))
			Expect(got.Model).To(Equal("alias-sonnet"), "the latest call, by the route it asked for")
			if h.Owners != nil {
				Expect(got.UserID).To(Equal("ada"))
			}
		})

		It("answers ErrNotFound for the checkpoints of an unknown conversation", func() {
			_, err := h.Lister.Checkpoints(ctx, uniq("nope"))
			Expect(err).To(MatchError(ports.ErrNotFound))
		})
	})
}
