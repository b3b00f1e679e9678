package conversation_test

import (
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
)

var _ = Describe("Change.Plan", func() {
	var (
		log  *conversation.Log
		a, b conversation.Message
	)

	BeforeEach(func() {
		var err error
		log, err = conversation.NewLog("conv")
		Expect(err).NotTo(HaveOccurred())
		a, b = userText("a", "A"), assistantText("b", "B")
	})

	DescribeTable("refuses changes that cannot be written",
		func(change func() conversation.Change, want error) {
			_, err := change().Plan()
			Expect(err).To(MatchError(want))
		},
		Entry("a change appends at least one message",
			func() conversation.Change { return conversation.AppendTo(log.Head()) }, conversation.ErrInvalidCheckpoint),
		Entry("a change has a base checkpoint",
			func() conversation.Change { return conversation.AppendTo(conversation.Checkpoint{}, a) }, conversation.ErrInvalidCheckpoint),
		Entry("a replacement attaches to the root",
			func() conversation.Change {
				head := mustApply(log, conversation.AppendTo(log.Head(), a))
				return conversation.ReplaceWith(head.ID(), head, b)
			}, conversation.ErrInvalidCheckpoint),
		Entry("one change does not hold the same id twice",
			func() conversation.Change { return conversation.AppendTo(log.Head(), a, a) }, conversation.ErrInvalidMessage),
		Entry("one change does not hold the same runtime event twice",
			func() conversation.Change {
				twin, err := conversation.NewMessage(conversation.MessageSpec{ID: "twin", Role: a.Role(),
					Origin: conversation.OriginRuntime, RuntimeEventID: "e", Parts: a.Parts()})
				Expect(err).NotTo(HaveOccurred())
				return conversation.AppendTo(log.Head(), runtimeEvent("e", "x"), twin)
			}, conversation.ErrInvalidMessage),
		Entry("a change holds only built messages",
			func() conversation.Change { return conversation.AppendTo(log.Head(), conversation.Message{}) }, conversation.ErrInvalidMessage),
	)

	It("tells the store which checkpoints, messages and events to look up", func() {
		e := runtimeEvent("e1", "hi")
		plan, err := conversation.AppendTo(log.Head(), a, e).Plan()
		Expect(err).NotTo(HaveOccurred())
		Expect(plan.CandidateIDs()).To(HaveLen(2))
		Expect(plan.CandidateIDs()[1]).To(Equal(plan.Target().ID()))
		Expect(plan.MessageIDs()).To(Equal([]string{"a", "runtime:e1"}))
		Expect(plan.RuntimeEventIDs()).To(Equal([]string{"e1"}))
		Expect(plan.Base().ID()).To(Equal(log.Head().ID()))
	})
})

var _ = Describe("Plan.Decide", func() {
	var (
		log     *conversation.Log
		a, b, c conversation.Message
	)

	BeforeEach(func() {
		var err error
		log, err = conversation.NewLog("conv")
		Expect(err).NotTo(HaveOccurred())
		a, b, c = userText("a", "A"), assistantText("b", "B"), userText("c", "C")
	})

	When("appending onto the expected head", func() {
		It("creates a child that becomes the head and stores the new messages", func() {
			d, err := log.Apply(conversation.AppendTo(log.Head(), a, b))
			Expect(err).NotTo(HaveOccurred())
			Expect(d).To(BeDecided(conversation.Create))
			Expect(d.NewMessages).To(HaveMessageIDs("a", "b"))
			Expect(log.Head().ID()).To(Equal(d.Checkpoint.ID()))
			Expect(d.Checkpoint.ParentID()).To(Equal(log.Root().ID()))
		})
	})

	When("another writer moved the head first", func() {
		It("refuses the write with ErrStaleHead and leaves the log unchanged", func() {
			seen := log.Head()
			mustApply(log, conversation.AppendTo(seen, a))
			head := log.Head()
			_, err := log.Apply(conversation.AppendTo(seen, c))
			Expect(err).To(MatchError(conversation.ErrStaleHead))
			Expect(log.Head()).To(Equal(head))
		})
	})

	DescribeTable("re-appending a message is idempotent only when its content is identical",
		func(again func() conversation.Message, wantErr bool) {
			mustApply(log, conversation.AppendTo(log.Head(), runtimeEvent("e1", "hello")))
			head := log.Head()
			d, err := log.Apply(conversation.AppendTo(log.Root(), again()))
			if wantErr {
				Expect(err).To(MatchError(conversation.ErrMessageConflict))
				var conflict *conversation.MessageConflictError
				Expect(errors.As(err, &conflict)).To(BeTrue())
				Expect(conflict.Error()).To(ContainSubstring("conflict"))
			} else {
				Expect(err).NotTo(HaveOccurred())
				Expect(d).To(BeDecided(conversation.Unchanged))
				Expect(d.Checkpoint.ID()).To(Equal(head.ID()))
			}
			Expect(log.Head()).To(Equal(head))
		},
		Entry("the same id with the same content is a no-op", func() conversation.Message {
			return runtimeEvent("e1", "hello")
		}, false),
		Entry("the same id with other content is ErrMessageConflict", func() conversation.Message {
			return runtimeEvent("e1", "hello, edited")
		}, true),
		Entry("the same runtime event under another id is ErrMessageConflict", func() conversation.Message {
			m, err := conversation.NewMessage(conversation.MessageSpec{
				ID: "other", Role: userText("x", "x").Role(), Origin: conversation.OriginRuntime, RuntimeEventID: "e1",
				Parts: userText("x", "hello").Parts(),
			})
			Expect(err).NotTo(HaveOccurred())
			return m
		}, true),
	)

	It("identical_runtime_event_is_exactly_once_and_conflicts_are_rejected", func() {
		first := mustApply(log, conversation.AppendTo(log.Head(), runtimeEvent("E", "go")))
		d, err := log.Apply(conversation.AppendTo(first, runtimeEvent("E", "go")))
		Expect(err).NotTo(HaveOccurred(), "the same event appended onto its own checkpoint is already stored")
		Expect(d).To(BeDecided(conversation.Unchanged))
		Expect(d.Checkpoint.ID()).To(Equal(first.ID()))
		_, err = log.Apply(conversation.AppendTo(log.Head(), runtimeEvent("E", "stop")))
		Expect(err).To(MatchError(conversation.ErrMessageConflict))
	})

	It("retrying_the_same_prefix_from_the_same_base_reuses_the_revision", func() {
		base := mustApply(log, conversation.AppendTo(log.Head(), a))
		byRun1 := mustApply(log, conversation.AppendTo(base, b))
		mustApply(log, conversation.AppendTo(byRun1, c))

		By("run 2 branches from the same base and appends the same message")
		d, err := log.Apply(conversation.BranchFrom(log.Head().ID(), base, b))
		Expect(err).NotTo(HaveOccurred())
		Expect(d).To(BeDecided(conversation.MoveHead))
		Expect(d.Checkpoint.ID()).To(Equal(byRun1.ID()))
		Expect(log.Head().ID()).To(Equal(byRun1.ID()))
	})

	It("selecting_an_old_revision_creates_a_branch_without_old_suffixes", func() {
		atA := mustApply(log, conversation.AppendTo(log.Head(), a))
		atB := mustApply(log, conversation.AppendTo(atA, b))

		atC := mustApply(log, conversation.BranchFrom(atB.ID(), atA, c))

		Expect(log.Messages(atB.ID())).To(HaveMessageIDs("a", "b"))
		Expect(log.Messages(atC.ID())).To(HaveMessageIDs("a", "c"))
		Expect(log.Head().ID()).To(Equal(atC.ID()))
		By("the old run can no longer append to its head")
		_, err := log.Apply(conversation.AppendTo(atB, userText("d", "D")))
		Expect(err).To(MatchError(conversation.ErrStaleHead))
	})

	It("editing_a_logical_input_discards_its_active_suffix", func() {
		anchor := log.Root()
		oldHead := mustApply(log, conversation.AppendTo(anchor, runtimeEvent("in:v1", "first"), b, c))

		edited := mustApply(log, conversation.BranchFrom(oldHead.ID(), anchor, runtimeEvent("in:v2", "first, edited")))

		Expect(edited.ParentID()).To(Equal(anchor.ID()))
		Expect(log.Messages(edited.ID())).To(HaveMessageIDs("runtime:in:v2"))
		Expect(log.Messages(oldHead.ID())).To(HaveMessageIDs("runtime:in:v1", "b", "c"))
	})

	Describe("retry_reuses_only_the_matching_initial_child_chain", func() {
		var stored conversation.Checkpoint
		var ctx, runtime conversation.Message

		BeforeEach(func() {
			ctx, runtime = userText("request-context:e", "ctx"), runtimeEvent("e:v1", "question")
			initial := mustApply(log, conversation.AppendTo(log.Root(), ctx, runtime))
			stored = mustApply(log, conversation.AppendTo(initial, assistantText("answer", "42")))
		})

		It("reuses both initial messages when the retry repeats them", func() {
			d, err := log.Apply(conversation.BranchFrom(stored.ID(), log.Root(), ctx, runtime))
			Expect(err).NotTo(HaveOccurred())
			Expect(d.Reused).To(Equal(2))
			Expect(log.Messages(log.Head().ID())).To(HaveMessageIDs("request-context:e", "runtime:e:v1"))
		})

		It("reuses only the request context when the runtime message changed", func() {
			d, err := log.Apply(conversation.BranchFrom(stored.ID(), log.Root(), ctx, runtimeEvent("e:v2", "question?")))
			Expect(err).NotTo(HaveOccurred())
			Expect(d).To(BeDecided(conversation.Create))
			Expect(d.NewMessages).To(HaveMessageIDs("runtime:e:v2"), "the stored request context is not written again")
			Expect(log.Messages(d.Checkpoint.ID())).To(HaveMessageIDs("request-context:e", "runtime:e:v2"))
			Expect(log.Messages(stored.ID())).To(HaveMessageIDs("request-context:e", "runtime:e:v1", "answer"))
		})
	})

	When("a retry arrives after the head moved on", func() {
		It("reports the already stored checkpoint without moving the head", func() {
			seen := log.Head()
			done := mustApply(log, conversation.AppendTo(seen, a))
			mustApply(log, conversation.AppendTo(done, b))
			head := log.Head()

			d, err := log.Apply(conversation.AppendTo(seen, a))
			Expect(err).NotTo(HaveOccurred())
			Expect(d).To(BeDecided(conversation.Unchanged))
			Expect(d.Checkpoint.ID()).To(Equal(done.ID()))
			Expect(log.Head()).To(Equal(head))
		})
	})

	When("replacing the history (compaction)", func() {
		It("creates a child of the root holding only the replacement and keeps the old branch readable", func() {
			old := mustApply(log, conversation.AppendTo(log.Head(), a, b, c))
			summary := userText("runtime:summary:run", "<conversation_summary>s</conversation_summary>")

			compacted := mustApply(log, conversation.ReplaceWith(old.ID(), log.Root(), summary, c))

			Expect(compacted.ParentID()).To(Equal(log.Root().ID()))
			Expect(compacted.Delta()).To(Equal([]string{"runtime:summary:run", "c"}))
			Expect(log.Messages(compacted.ID())).To(HaveMessageIDs("runtime:summary:run", "c"))
			Expect(log.Messages(old.ID())).To(HaveMessageIDs("a", "b", "c"))
		})
	})

	It("never moves the head of another conversation", func() {
		other, _ := conversation.NewLog("other")
		_, err := log.Apply(conversation.AppendTo(other.Head(), a))
		Expect(err).To(MatchError(conversation.ErrInvalidCheckpoint))
		_, err = log.Messages("ck_unknown")
		Expect(err).To(MatchError(conversation.ErrInvalidCheckpoint))
	})
})

var _ = Describe("Plan.Decide with messages the base already holds", func() {
	var log *conversation.Log

	BeforeEach(func() {
		var err error
		log, err = conversation.NewLog("conv")
		Expect(err).NotTo(HaveOccurred())
	})

	It("appends only the messages the base does not hold yet", func() {
		head := mustApply(log, conversation.AppendTo(log.Head(), userText("a", "A"), assistantText("b", "B")))
		d, err := log.Apply(conversation.AppendTo(head, userText("a", "A"), userText("c", "C")))
		Expect(err).NotTo(HaveOccurred())
		Expect(d).To(BeDecided(conversation.Create))
		Expect(d.Reused).To(Equal(1))
		Expect(log.Messages(d.Checkpoint.ID())).To(HaveMessageIDs("a", "b", "c"))
	})

	It("moves the head back to a base that already holds every message of a branch", func() {
		atA := mustApply(log, conversation.AppendTo(log.Head(), userText("a", "A")))
		atB := mustApply(log, conversation.AppendTo(atA, assistantText("b", "B")))
		d, err := log.Apply(conversation.BranchFrom(atB.ID(), atA, userText("a", "A")))
		Expect(err).NotTo(HaveOccurred())
		Expect(d).To(BeDecided(conversation.MoveHead))
		Expect(log.Head().ID()).To(Equal(atA.ID()))
	})
})
