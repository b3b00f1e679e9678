package conversation_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
)

var _ = Describe("Checkpoint", func() {
	var (
		log     *conversation.Log
		a, b, c conversation.Message
	)

	BeforeEach(func() {
		var err error
		log, err = conversation.NewLog("conv-1")
		Expect(err).NotTo(HaveOccurred())
		a, b, c = userText("a", "A"), assistantText("b", "B"), userText("c", "C")
	})

	Describe("Root", func() {
		It("is empty, parentless and deterministic per conversation", func() {
			r1, err := conversation.Root("conv-1")
			Expect(err).NotTo(HaveOccurred())
			r2, _ := conversation.Root("conv-2")
			Expect(r1.IsRoot()).To(BeTrue())
			Expect(r1.Len()).To(BeZero())
			Expect(r1.ParentID()).To(BeEmpty())
			Expect(r1.ID()).To(Equal(log.Root().ID()))
			Expect(r1.ID()).NotTo(Equal(r2.ID()))
		})
		It("needs a conversation id", func() {
			_, err := conversation.Root("")
			Expect(err).To(MatchError(conversation.ErrInvalidCheckpoint))
		})
	})

	Describe("the digest chain", func() {
		It("depends only on the message list, not on how it was split into checkpoints", func() {
			oneByOne := mustApply(log, conversation.AppendTo(log.Head(), a))
			oneByOne = mustApply(log, conversation.AppendTo(oneByOne, b))
			oneByOne = mustApply(log, conversation.AppendTo(oneByOne, c))

			other, err := conversation.NewLog("conv-1")
			Expect(err).NotTo(HaveOccurred())
			together := mustApply(other, conversation.AppendTo(other.Head(), a, b, c))

			Expect(together.Digest()).To(Equal(oneByOne.Digest()))
			Expect(together.ID()).To(Equal(oneByOne.ID()))
		})
		It("differs between conversations holding the same messages", func() {
			other, _ := conversation.NewLog("conv-2")
			Expect(mustApply(other, conversation.AppendTo(other.Head(), a)).Digest()).
				NotTo(Equal(mustApply(log, conversation.AppendTo(log.Head(), a)).Digest()))
		})
		It("round-trips through its hex form", func() {
			d := log.Root().Digest()
			back, err := conversation.ParseDigest(d.String())
			Expect(err).NotTo(HaveOccurred())
			Expect(back).To(Equal(d))
			_, err = conversation.ParseDigest("zz")
			Expect(err).To(MatchError(conversation.ErrInvalidCheckpoint))
		})
	})

	Describe("the delta representation", func() {
		It("stores only the ids a checkpoint appends, so a checkpoint costs O(new messages)", func() {
			first := mustApply(log, conversation.AppendTo(log.Head(), a, b))
			second := mustApply(log, conversation.AppendTo(first, c))
			Expect(second.Delta()).To(Equal([]string{"c"}))
			Expect(second.Len()).To(Equal(3))
			Expect(second.ParentID()).To(Equal(first.ID()))
			Expect(log.Messages(second.ID())).To(HaveMessageIDs("a", "b", "c"))
		})
	})

	Describe("RehydrateCheckpoint", func() {
		var stored conversation.CheckpointRecord

		BeforeEach(func() {
			stored = mustApply(log, conversation.AppendTo(log.Head(), a, b)).Record()
		})

		It("rebuilds a stored checkpoint equal to the written one", func() {
			back, err := conversation.RehydrateCheckpoint(stored)
			Expect(err).NotTo(HaveOccurred())
			Expect(back.Record()).To(Equal(stored))
			root, err := conversation.RehydrateCheckpoint(log.Root().Record())
			Expect(err).NotTo(HaveOccurred())
			Expect(root.IsRoot()).To(BeTrue())
		})

		DescribeTable("refuses records whose header does not agree with itself",
			func(mutate func(*conversation.CheckpointRecord)) {
				r := stored
				mutate(&r)
				_, err := conversation.RehydrateCheckpoint(r)
				Expect(err).To(MatchError(conversation.ErrInvalidCheckpoint))
			},
			Entry("the id is derived from the digest", func(r *conversation.CheckpointRecord) { r.ID = "ck_other" }),
			Entry("a checkpoint belongs to a conversation", func(r *conversation.CheckpointRecord) { r.ConversationID = "" }),
			Entry("a child appends at least one message", func(r *conversation.CheckpointRecord) { r.Delta = nil }),
			Entry("a child is at least as long as its delta", func(r *conversation.CheckpointRecord) { r.Length = 1 }),
			Entry("a delta holds no empty id", func(r *conversation.CheckpointRecord) { r.Delta = []string{"a", ""} }),
			Entry("a root has no messages", func(r *conversation.CheckpointRecord) { r.ParentID = "" }),
		)
	})

	Describe("MessageIDs and Materialize", func() {
		var chain []conversation.Checkpoint
		var byID map[string]conversation.Message

		BeforeEach(func() {
			first := mustApply(log, conversation.AppendTo(log.Head(), a))
			second := mustApply(log, conversation.AppendTo(first, b, c))
			chain = []conversation.Checkpoint{log.Root(), first, second}
			byID = map[string]conversation.Message{"a": a, "b": b, "c": c}
		})

		It("concatenates the deltas of a verified chain", func() {
			Expect(conversation.MessageIDs(chain)).To(Equal([]string{"a", "b", "c"}))
			Expect(conversation.Materialize(chain, byID)).To(HaveMessageIDs("a", "b", "c"))
		})

		DescribeTable("refuses chains that are not a valid history",
			func(break_ func([]conversation.Checkpoint, map[string]conversation.Message) []conversation.Checkpoint) {
				_, err := conversation.Materialize(break_(chain, byID), byID)
				Expect(err).To(MatchError(conversation.ErrInvalidCheckpoint))
			},
			Entry("a chain starts at the root", func(ch []conversation.Checkpoint, _ map[string]conversation.Message) []conversation.Checkpoint {
				return ch[1:]
			}),
			Entry("each checkpoint is a child of the previous one", func(ch []conversation.Checkpoint, _ map[string]conversation.Message) []conversation.Checkpoint {
				return []conversation.Checkpoint{ch[0], ch[2]}
			}),
			Entry("every named message is present", func(ch []conversation.Checkpoint, m map[string]conversation.Message) []conversation.Checkpoint {
				delete(m, "b")
				return ch
			}),
			Entry("every digest matches its messages", func(ch []conversation.Checkpoint, m map[string]conversation.Message) []conversation.Checkpoint {
				m["b"] = assistantText("b", "tampered")
				return ch
			}),
		)

		It("refuses a chain whose lengths do not add up", func() {
			r := chain[2].Record()
			r.Length = 9
			bad, err := conversation.RehydrateCheckpoint(r)
			Expect(err).NotTo(HaveOccurred())
			_, err = conversation.MessageIDs([]conversation.Checkpoint{chain[0], chain[1], bad})
			Expect(err).To(MatchError(conversation.ErrInvalidCheckpoint))
		})
	})
})

var _ = Describe("Log", func() {
	It("finds checkpoints by id and scopes them to the conversation", func() {
		log, err := conversation.NewLog("conv-9")
		Expect(err).NotTo(HaveOccurred())
		head := mustApply(log, conversation.AppendTo(log.Head(), userText("a", "A")))
		got, ok := log.Checkpoint(head.ID())
		Expect(ok).To(BeTrue())
		Expect(got.ConversationID()).To(Equal("conv-9"))
		_, ok = log.Checkpoint("ck_missing")
		Expect(ok).To(BeFalse())
		_, err = conversation.NewLog("")
		Expect(err).To(MatchError(conversation.ErrInvalidCheckpoint))
	})

	It("decides a change without writing it, exactly as Apply then writes it", func() {
		log, err := conversation.NewLog("conv-10")
		Expect(err).NotTo(HaveOccurred())
		first := mustApply(log, conversation.AppendTo(log.Head(), userText("a", "A")))
		ch := conversation.AppendTo(first, userText("b", "B"))
		d, err := log.Decide(ch)
		Expect(err).NotTo(HaveOccurred())
		Expect(d.Outcome).To(Equal(conversation.Create))
		Expect(d.NewMessages).To(HaveLen(1))
		Expect(log.Head().ID()).To(Equal(first.ID()), "the head did not move")
		_, ok := log.Checkpoint(d.Checkpoint.ID())
		Expect(ok).To(BeFalse(), "the checkpoint is not stored")
		applied, err := log.Apply(ch)
		Expect(err).NotTo(HaveOccurred())
		Expect(applied.Checkpoint.ID()).To(Equal(d.Checkpoint.ID()))
		_, err = log.Decide(conversation.AppendTo(first, userText("c", "C")))
		Expect(err).To(MatchError(conversation.ErrStaleHead))
	})
})
