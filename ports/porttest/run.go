package porttest

import (
	"context"
	"errors"
	"fmt"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/ports"
)

func describeRuns(open Factory) {
	Describe("RunStore", func() {
		var (
			h    Harness
			rs   ports.RunStore
			ctx  context.Context
			conv string
			root conversation.Checkpoint
		)
		claim := func(runID string) string {
			replaced, err := rs.Claim(ctx, ports.RunClaim{RunID: runID, ConversationID: conv, CursorRequestID: "req-" + conv, Kind: "root"})
			Expect(err).NotTo(HaveOccurred())
			return replaced
		}
		BeforeEach(func() {
			h, ctx, conv = open(), context.Background(), uniq("conv")
			rs = h.Stores.Runs
			var err error
			root, err = h.Stores.Conversations.Open(ctx, conv)
			Expect(err).NotTo(HaveOccurred())
		})

		Describe("Claim", func() {
			It("starts a running run on the conversation head", func() {
				Expect(claim("run-1")).To(BeEmpty())
				run, err := rs.Run(ctx, "run-1"+"")
				Expect(err).NotTo(HaveOccurred())
				Expect(run.Status).To(Equal(ports.RunRunning))
				Expect(run.BaseCheckpointID).To(Equal(root.ID()))
				Expect(run.ProviderCallIndex).To(Equal(-1))
			})

			It("leaves exactly one running run when claims on one conversation race", func() {
				const n = 8
				var wg sync.WaitGroup
				errs := make([]error, n)
				for i := range n {
					wg.Add(1)
					go func() {
						defer wg.Done()
						_, errs[i] = rs.Claim(ctx, ports.RunClaim{RunID: fmt.Sprintf("%s-race-%d", conv, i), ConversationID: conv, Kind: "root"})
					}()
				}
				wg.Wait()
				running := 0
				for i := range n {
					Expect(errs[i]).NotTo(HaveOccurred())
					run, err := rs.Run(ctx, fmt.Sprintf("%s-race-%d", conv, i))
					Expect(err).NotTo(HaveOccurred())
					if run.Status == ports.RunRunning {
						running++
					} else {
						Expect(run.Status).To(Equal(ports.RunCancelled))
					}
				}
				Expect(running).To(Equal(1))
			})

			It("lets finishes race claims on one conversation without failing either", func() {
				const n = 6
				for i := range n {
					claim(fmt.Sprintf("%s-fin-%d", conv, i))
				}
				var wg sync.WaitGroup
				errs := make([]error, 2*n)
				for i := range n {
					wg.Add(2)
					go func() {
						defer wg.Done()
						err := rs.Finish(ctx, fmt.Sprintf("%s-fin-%d", conv, i), ports.RunEnd{Status: ports.RunCompleted})
						if !errors.Is(err, ports.ErrNotOwner) {
							errs[i] = err
						}
					}()
					go func() {
						defer wg.Done()
						_, errs[n+i] = rs.Claim(ctx, ports.RunClaim{RunID: fmt.Sprintf("%s-next-%d", conv, i), ConversationID: conv, Kind: "root"})
					}()
				}
				wg.Wait()
				for _, err := range errs {
					Expect(err).NotTo(HaveOccurred())
				}
			})

			It("preempts the previous run, which can then neither write nor finish", func() {
				old, next := conv+"-old", conv+"-new"
				claim(old)
				Expect(claim(next)).To(Equal(old))
				_, err := h.Stores.Conversations.Apply(ctx, ports.Write{Change: conversation.AppendTo(root, text("u", "x")), RunID: old})
				Expect(err).To(MatchError(ports.ErrNotOwner))
				Expect(rs.Finish(ctx, old, ports.RunEnd{Status: ports.RunCompleted})).To(MatchError(ports.ErrNotOwner))
				run, err := rs.Run(ctx, old)
				Expect(err).NotTo(HaveOccurred())
				Expect(run.Status).To(Equal(ports.RunCancelled))
			})

			It("rejects a run id claimed before with ErrConflict", func() {
				claim(conv + "-r")
				_, err := rs.Claim(ctx, ports.RunClaim{RunID: conv + "-r", ConversationID: conv, Kind: "root"})
				Expect(err).To(MatchError(ports.ErrConflict))
			})

			It("returns ErrNotFound for an unknown conversation", func() {
				_, err := rs.Claim(ctx, ports.RunClaim{RunID: uniq("run"), ConversationID: uniq("nowhere"), Kind: "root"})
				Expect(err).To(MatchError(ports.ErrNotFound))
			})
		})

		Describe("ClaimTurn", func() {
			It("claims, appends the initial messages as the run and begins its first model cycle in one write", func() {
				old := conv + "-old"
				claim(old)
				id := conv + "-turn"
				t, err := rs.ClaimTurn(ctx, ports.RunClaim{RunID: id, ConversationID: conv, Kind: "root"}, []conversation.Message{text("u1", "hello")})
				Expect(err).NotTo(HaveOccurred())
				Expect(t.Replaced).To(Equal(old))
				Expect(t.Head.ID()).To(Equal(root.ID()))
				Expect(t.Base.ID()).To(Equal(root.ID()))
				Expect(t.Applied.Outcome).To(Equal(conversation.Create))
				Expect(t.CallIndex).To(Equal(0))
				head, err := h.Stores.Conversations.Head(ctx, conv)
				Expect(err).NotTo(HaveOccurred())
				Expect(head.ID()).To(Equal(t.Applied.Checkpoint.ID()))
				run, err := rs.Run(ctx, id)
				Expect(err).NotTo(HaveOccurred())
				Expect(run.Status).To(Equal(ports.RunRunning))
				Expect(run.BaseCheckpointID).To(Equal(root.ID()))
				Expect(run.HeadCheckpointID).To(Equal(head.ID()))
				Expect(run.ProviderCallIndex).To(Equal(0))
				Expect(rs.BeginProviderCall(ctx, id)).To(Equal(1))
			})

			It("branches from the head when the base is an older checkpoint", func() {
				first := apply(ctx, h.Stores.Conversations, "", conversation.AppendTo(root, text("u1", "one")))
				apply(ctx, h.Stores.Conversations, "", conversation.AppendTo(first, text("u2", "two")))
				id := conv + "-branch"
				t, err := rs.ClaimTurn(ctx, ports.RunClaim{RunID: id, ConversationID: conv, Kind: "root", BaseCheckpointID: first.ID()},
					[]conversation.Message{text("u3", "other")})
				Expect(err).NotTo(HaveOccurred())
				Expect(t.Base.ID()).To(Equal(first.ID()))
				_, msgs, err := h.Stores.Conversations.Load(ctx, t.Applied.Checkpoint.ID())
				Expect(err).NotTo(HaveOccurred())
				Expect(msgs).To(HaveLen(2))
				Expect(msgs[1].ID()).To(Equal("u3"))
			})

			It("writes nothing when the append is refused", func() {
				apply(ctx, h.Stores.Conversations, "", conversation.AppendTo(root, text("u1", "one")))
				id := conv + "-refused"
				_, err := rs.ClaimTurn(ctx, ports.RunClaim{RunID: id, ConversationID: conv, Kind: "root"}, []conversation.Message{text("u1", "other content")})
				Expect(err).To(HaveOccurred())
				_, err = rs.Run(ctx, id)
				Expect(err).To(MatchError(ports.ErrNotFound))
			})

			It("returns ErrNotFound for an unknown conversation and ErrConflict for a run id claimed before", func() {
				_, err := rs.ClaimTurn(ctx, ports.RunClaim{RunID: uniq("run"), ConversationID: uniq("nowhere"), Kind: "root"}, []conversation.Message{text("u1", "x")})
				Expect(err).To(MatchError(ports.ErrNotFound))
				claim(conv + "-r")
				_, err = rs.ClaimTurn(ctx, ports.RunClaim{RunID: conv + "-r", ConversationID: conv, Kind: "root"}, []conversation.Message{text("u1", "x")})
				Expect(err).To(MatchError(ports.ErrConflict))
			})
		})

		It("moves the run's head with its writes and counts its provider calls", func() {
			id := conv + "-run"
			claim(id)
			ck := apply(ctx, h.Stores.Conversations, id, conversation.AppendTo(root, text("u", "x")))
			Expect(rs.BeginProviderCall(ctx, id)).To(Equal(0))
			Expect(rs.BeginProviderCall(ctx, id)).To(Equal(1))
			run, err := rs.Run(ctx, id)
			Expect(err).NotTo(HaveOccurred())
			Expect(run.HeadCheckpointID).To(Equal(ck.ID()))
		})

		It("finishes a run once with its usage and releases the conversation", func() {
			id := conv + "-run"
			claim(id)
			usage := llm.Usage{Input: 10, Output: 5, Known: llm.UsageInput | llm.UsageOutput}
			Expect(rs.Finish(ctx, id, ports.RunEnd{Status: ports.RunFailed, Usage: usage, FailureCategory: "provider", FailureSummary: "boom"})).To(Succeed())
			run, err := rs.Run(ctx, id)
			Expect(err).NotTo(HaveOccurred())
			Expect(run.Status).To(Equal(ports.RunFailed))
			Expect(run.Usage).To(Equal(usage))
			Expect(run.FailureSummary).To(Equal("boom"))
			Expect(rs.Finish(ctx, id, ports.RunEnd{Status: ports.RunCompleted})).To(MatchError(ports.ErrNotOwner))
			_, err = rs.BeginProviderCall(ctx, id)
			Expect(err).To(MatchError(ports.ErrNotOwner))
		})

		It("maps a reused Cursor request id to its newest run", func() {
			claim(conv + "-a")
			claim(conv + "-b")
			run, err := rs.LatestForRequest(ctx, "req-"+conv)
			Expect(err).NotTo(HaveOccurred())
			Expect(run.RunID).To(Equal(conv + "-b"))
			_, err = rs.LatestForRequest(ctx, uniq("req"))
			Expect(err).To(MatchError(ports.ErrNotFound))
		})
	})
}
