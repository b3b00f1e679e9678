package porttest

import (
	"context"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
	"keygate/ports"
)

func describeConversations(open Factory) {
	Describe("ConversationStore", func() {
		var (
			h    Harness
			cs   ports.ConversationStore
			ctx  context.Context
			conv string
			root conversation.Checkpoint
		)

		BeforeEach(func() {
			h = open()
			cs, ctx, conv = h.Stores.Conversations, context.Background(), uniq("conv")
			var err error
			root, err = cs.Open(ctx, conv)
			Expect(err).NotTo(HaveOccurred())
		})

		Describe("Open", func() {
			It("makes the empty root the head of a new conversation and returns it again later", func() {
				Expect(root.IsRoot()).To(BeTrue())
				again, err := cs.Open(ctx, conv)
				Expect(err).NotTo(HaveOccurred())
				Expect(again.ID()).To(Equal(root.ID()))
			})
		})

		Describe("Head and Load", func() {
			It("return ErrNotFound for an unknown conversation or checkpoint", func() {
				_, err := cs.Head(ctx, uniq("missing"))
				Expect(err).To(MatchError(ports.ErrNotFound))
				_, _, err = cs.Load(ctx, "ck_00000000000000000000000000000000")
				Expect(err).To(MatchError(ports.ErrNotFound))
			})
		})

		Describe("Apply", func() {
			It("appends messages, moves the head and loads the full list in order", func() {
				first := apply(ctx, cs, "", conversation.AppendTo(root, text("u1", "hello")))
				second := apply(ctx, cs, "", conversation.AppendTo(first, assistant("a1", "hi"), text("u2", "more")))
				head, err := cs.Head(ctx, conv)
				Expect(err).NotTo(HaveOccurred())
				Expect(head.ID()).To(Equal(second.ID()))
				ck, msgs, err := cs.Load(ctx, second.ID())
				Expect(err).NotTo(HaveOccurred())
				Expect(ck.Len()).To(Equal(3))
				Expect(msgs).To(HaveIDs("u1", "a1", "u2"))
				Expect(msgs[1].Equal(assistant("a1", "hi"))).To(BeTrue())
			})

			It("rejects an append on a stale head with ErrStaleHead and writes nothing", func() {
				first := apply(ctx, cs, "", conversation.AppendTo(root, text("u1", "hello")))
				_, err := cs.Apply(ctx, ports.Write{Change: conversation.AppendTo(root, text("u2", "late"))})
				Expect(err).To(MatchError(conversation.ErrStaleHead))
				head, err := cs.Head(ctx, conv)
				Expect(err).NotTo(HaveOccurred())
				Expect(head.ID()).To(Equal(first.ID()))
			})

			It("stores a change once when concurrent retries apply it", func() {
				var wg sync.WaitGroup
				ids := make([]string, 8)
				errs := make([]error, 8)
				for i := range ids {
					wg.Add(1)
					go func() {
						defer wg.Done()
						d, err := cs.Apply(ctx, ports.Write{Change: conversation.AppendTo(root, text("u1", "hello"))})
						ids[i], errs[i] = d.Checkpoint.ID(), err
					}()
				}
				wg.Wait()
				for i := range ids {
					Expect(errs[i]).NotTo(HaveOccurred())
					Expect(ids[i]).To(Equal(ids[0]))
				}
				_, msgs, err := cs.Load(ctx, ids[0])
				Expect(err).NotTo(HaveOccurred())
				Expect(msgs).To(HaveIDs("u1"))
			})

			It("branches from an older checkpoint and keeps the old branch loadable (rollback)", func() {
				a := apply(ctx, cs, "", conversation.AppendTo(root, text("A", "a")))
				b := apply(ctx, cs, "", conversation.AppendTo(a, text("B", "b")))
				c := apply(ctx, cs, "", conversation.BranchFrom(b.ID(), a, text("C", "c")))
				_, onC, err := cs.Load(ctx, c.ID())
				Expect(err).NotTo(HaveOccurred())
				Expect(onC).To(HaveIDs("A", "C"))
				_, onB, err := cs.Load(ctx, b.ID())
				Expect(err).NotTo(HaveOccurred())
				Expect(onB).To(HaveIDs("A", "B"))
				head, _ := cs.Head(ctx, conv)
				Expect(head.ID()).To(Equal(c.ID()))
			})

			It("replaces the list with a child of the root (compaction)", func() {
				a := apply(ctx, cs, "", conversation.AppendTo(root, text("A", "a"), text("B", "b")))
				s := apply(ctx, cs, "", conversation.ReplaceWith(a.ID(), root, text("S", "summary")))
				Expect(s.ParentID()).To(Equal(root.ID()))
				_, msgs, err := cs.Load(ctx, s.ID())
				Expect(err).NotTo(HaveOccurred())
				Expect(msgs).To(HaveIDs("S"))
			})

			It("rejects a stored message id with other content as a MessageConflictError", func() {
				a := apply(ctx, cs, "", conversation.AppendTo(root, text("A", "a")))
				_, err := cs.Apply(ctx, ports.Write{Change: conversation.AppendTo(a, text("A", "changed"))})
				Expect(err).To(MatchError(conversation.ErrMessageConflict))
			})

			It("returns the context error for a cancelled context and writes nothing", func() {
				_, err := cs.Apply(cancelled(ctx), ports.Write{Change: conversation.AppendTo(root, text("u1", "x"))})
				Expect(err).To(MatchError(context.Canceled))
				head, err := cs.Head(ctx, conv)
				Expect(err).NotTo(HaveOccurred())
				Expect(head.ID()).To(Equal(root.ID()))
			})

			It("rejects a message naming an image blob that is not stored with ErrNotFound", func() {
				missing := ports.BlobID([]byte("never stored"))
				_, err := cs.Apply(ctx, ports.Write{Change: conversation.AppendTo(root, image("img", missing))})
				Expect(err).To(MatchError(ports.ErrNotFound))
				data := []byte("png bytes")
				Expect(h.Stores.Blobs.Put(ctx, ports.BlobID(data), data)).To(Succeed())
				ck := apply(ctx, cs, "", conversation.AppendTo(root, image("img", ports.BlobID(data))))
				Expect(ck.Len()).To(Equal(1))
			})
		})

		Describe("a reopened store", func() {
			It("keeps every checkpoint, message and blob", func() {
				data := []byte("kept")
				Expect(h.Stores.Blobs.Put(ctx, ports.BlobID(data), data)).To(Succeed())
				a := apply(ctx, cs, "", conversation.AppendTo(root, text("A", "a"), image("I", ports.BlobID(data))))
				h = h.Reopen()
				_, msgs, err := h.Stores.Conversations.Load(ctx, a.ID())
				Expect(err).NotTo(HaveOccurred())
				Expect(msgs).To(HaveIDs("A", "I"))
				Expect(h.Stores.Blobs.Get(ctx, ports.BlobID(data))).To(Equal(data))
			})
		})
	})
}
