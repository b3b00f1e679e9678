package run_test

import (
	"context"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	"keygate/app/run"
	"keygate/app/run/runtest"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/projection"
	"keygate/ports"
)

// stalled is a reply that streams text and then stalls until released or
// the client goes away.
func stalled(words ...string) providertest.Reply {
	steps := providertest.Events(providertest.ChatSSE(providertest.Turn{Text: words}))
	n := 1 + len(words)
	return providertest.Reply{Steps: append(append(steps[:n:n], providertest.Step{Stall: true}), steps[n:]...)}
}

// headersStalled is a reply that holds back even the response headers.
func headersStalled() providertest.Reply {
	return providertest.Reply{Steps: append([]providertest.Step{{Stall: true}}, providertest.Events(providertest.ChatSSE(text("late")))...)}
}

// validHistory checks that stored messages project to a provider history.
func validHistory(msgs []conversation.Message) {
	_, err := projection.History(msgs)
	Expect(err).NotTo(HaveOccurred())
}

var _ = Describe("Engine cancellation", func() {
	var (
		h  *harness
		t  *runtest.Transport
		hd *run.Handle
	)
	BeforeEach(func() {
		h = newHarness(memoryBackend, run.Limits{})
		t = &runtest.Transport{}
	})

	When("the run is cancelled while the provider holds back its headers", func() {
		BeforeEach(func() {
			h.server.Enqueue(headersStalled())
			hd = h.start(h.prepared(userText("e1", "go")), t)
			Eventually(h.server.Requests).Should(HaveLen(1))
			hd.Cancel("user pressed stop")
		})

		It("ends cancelled with the reason and closes the provider connection", func() {
			o := finish(hd)
			Expect(o.Status).To(Equal(run.Cancelled))
			Expect(o.Reason).To(Equal("user pressed stop"))
			Eventually(h.server.Gone()).Should(Receive())
		})

		It("marks the run and its call record cancelled", func() {
			finish(hd)
			stored, err := h.b.runs.Run(context.Background(), hd.RunID())
			Expect(err).NotTo(HaveOccurred())
			Expect(stored.Status).To(Equal(ports.RunCancelled))
			Eventually(func() string {
				rec, _ := h.b.record(conversation.ProviderCallID(hd.RunID(), 0, 0))
				return rec.Status.String()
			}).Should(Equal("cancelled"))
		})
	})

	When("the run is cancelled while the model streams", func() {
		BeforeEach(func() {
			h.server.Enqueue(stalled("partial ", "answer"))
			hd = h.start(h.prepared(userText("e1", "go")), t)
			Eventually(t.Text).Should(Equal("partial answer"))
			hd.Cancel("stop")
			Expect(finish(hd).Status).To(Equal(run.Cancelled))
			Eventually(t.Done()).Should(BeClosed())
		})

		It("stores the interrupted output once, so the next turn sees it", func() {
			msgs := h.history()
			Expect(ids(msgs)).To(Equal([]string{"runtime:e1", conversation.AssistantID(hd.RunID(), 0) + ":interrupted"}))
			Expect(msgs[1].Text()).To(Equal("partial answer"))
		})

		It("emits the interruption before the end", func() {
			evs := t.Events()
			Expect(eventsOf[run.CycleInterrupted](evs)).To(HaveLen(1))
			Expect(evs[len(evs)-1]).To(Equal(run.Ended{Outcome: run.Outcome{Status: run.Cancelled, Reason: "stop"}}))
		})

		It("continues after the interrupted output with a transient tail on resume", func() {
			h.enqueue(text("resumed"))
			p := h.prepared()
			p.Action = run.Action{Kind: run.ActionResume, FromRunID: hd.RunID()}
			resumed := h.start(p, &runtest.Transport{})
			Expect(finish(resumed).Status).To(Equal(run.Completed))
			req := h.provider.Calls()[1].Request
			Expect(texts(req.Messages)).To(Equal([]string{"user: go", "assistant: partial answer", "user: " + projection.ContinueText}))
			Expect(req.Messages[2].ID).To(Equal(conversation.ContinueID))
			for _, id := range ids(h.history()) {
				Expect(id).NotTo(Equal(conversation.ContinueID))
			}
		})
	})

	When("the run is cancelled during a retry wait", func() {
		It("ends cancelled without another attempt", func() {
			h.server.Enqueue(providertest.Status(500, serverError))
			hd = h.start(h.prepared(userText("e1", "go")), t)
			Eventually(h.clock.Waiters).Should(Equal(1))
			hd.Cancel("stop")
			Expect(finish(hd).Status).To(Equal(run.Cancelled))
			Expect(h.requestBodies()).To(HaveLen(1))
			Expect(h.clock.Waiters()).To(BeZero(), "the retry timer is released")
		})
	})

	When("the run is cancelled while the client executes tools", func() {
		It("ends cancelled and leaves a valid history without the pending calls", func() {
			h.enqueue(tools(call("call-a", "Read", `{}`), call("call-b", "Shell", `{"command":"sleep 60"}`)))
			t.OnEvent = func(hd *run.Handle, ev run.Event) {
				if _, ok := ev.(run.ExecuteToolRound); ok {
					hd.ToolResult(llm.ToolResult{CallID: "call-a", Content: "A"})
				}
				if c, ok := ev.(run.MessagesCommitted); ok && c.Cause.Kind == run.CauseToolResult {
					hd.Cancel("stop")
				}
			}
			hd = h.start(h.prepared(userText("e1", "go")), t)
			Expect(finish(hd).Status).To(Equal(run.Cancelled))
			validHistory(h.history())
			Expect(h.history()).To(HaveLen(3))
		})
	})

	When("the run is cancelled while a commit barrier waits", func() {
		It("ends cancelled", func() {
			h.enqueue(text("never sent"))
			t.Hold = true
			hd = h.start(h.prepared(userText("e1", "go")), t)
			Eventually(t.Held).Should(Equal(1))
			hd.Cancel("stop")
			Expect(finish(hd).Status).To(Equal(run.Cancelled))
			Expect(h.requestBodies()).To(BeEmpty())
		})
	})

	When("the transport reads slowly through a one-event buffer", func() {
		It("delivers every event in order and the run completes", func() {
			h.limits.EventBuffer = 1
			h.restart()
			h.enqueue(providertest.Turn{Text: providertest.Tokens(300)})
			hd, err := h.engine.Start(h.ctx, h.prepared(userText("e1", "go")))
			Expect(err).NotTo(HaveOccurred())
			var got string
			for ev := range hd.Events() {
				switch x := ev.(type) {
				case run.TextDelta:
					got += x.Text
				case run.MessagesCommitted:
					if x.Barrier != nil {
						x.Barrier.Ack()
					}
				}
			}
			Expect(got).To(Equal(strings.Join(providertest.Tokens(300), "")))
			Expect(hd.Outcome().Status).To(Equal(run.Completed))
		})

		It("still ends promptly when cancelled while nobody reads", func() {
			h.limits.EventBuffer = 1
			h.restart()
			h.enqueue(providertest.Turn{Text: providertest.Tokens(300)})
			ctx, cancel := context.WithCancel(h.ctx)
			hd, err := h.engine.Start(ctx, h.prepared(userText("e1", "go")))
			Expect(err).NotTo(HaveOccurred())
			first := <-hd.Events()
			Expect(first).To(BeAssignableToTypeOf(run.MessagesCommitted{}))
			first.(run.MessagesCommitted).Barrier.Ack()
			Eventually(h.server.Requests).Should(HaveLen(1))
			cancel()
			Eventually(hd.Done()).Should(BeClosed())
			Expect(hd.Outcome().Status).To(Equal(run.Cancelled))
		})
	})

	When("the engine shuts down", func() {
		It("cancels every run and waits for them", func() {
			h.server.Enqueue(headersStalled(), headersStalled())
			first := h.start(h.prepared(userText("e1", "go")), &runtest.Transport{})
			other := *h
			other.conv = h.conv + "-other"
			second := other.start(other.prepared(userText("e1", "go")), &runtest.Transport{})
			Eventually(h.server.Requests).Should(HaveLen(2))
			Expect(h.engine.Shutdown(context.Background())).To(Succeed())
			for _, hd := range []*run.Handle{first, second} {
				Expect(hd.Done()).To(BeClosed())
				Expect(hd.Outcome().Reason).To(Equal(run.ReasonShutdown))
			}
		})
	})

	When("a run id is started twice", func() {
		It("refuses the second start", func() {
			h.enqueue(text("once"))
			p := h.prepared(userText("e1", "go"))
			finish(h.start(p, &runtest.Transport{}))
			_, err := h.engine.Start(h.ctx, p)
			Expect(err).To(MatchError(ports.ErrConflict))
		})
	})

	When("the context given to Start is cancelled", func() {
		It("ends the run cancelled and closes its events", func() {
			h.server.Enqueue(headersStalled())
			ctx, cancel := context.WithCancel(context.Background())
			hd, err := h.engine.Start(ctx, h.prepared(userText("e1", "go")))
			Expect(err).NotTo(HaveOccurred())
			t.Drive(hd)
			Eventually(h.server.Requests).Should(HaveLen(1))
			cancel()
			Expect(finish(hd).Status).To(Equal(run.Cancelled))
			Eventually(t.Done()).Should(BeClosed())
		})
	})
})

var _ = Describe("Engine preemption", func() {
	var h *harness
	BeforeEach(func() { h = newHarness(memoryBackend, run.Limits{}) })

	When("a newer run claims the conversation while the older one waits for the provider", func() {
		var older, newer *run.Handle
		BeforeEach(func() {
			h.server.Enqueue(headersStalled())
			older = h.start(h.prepared(userText("e1", "first")), &runtest.Transport{})
			Eventually(h.server.Requests).Should(HaveLen(1))
			h.enqueue(text("second answer"))
			newer = h.start(h.prepared(userText("e2", "second")), &runtest.Transport{})
		})

		It("cancels the older run and completes the newer one", func() {
			o := finish(older)
			Expect(o.Status).To(Equal(run.Cancelled))
			Expect(o.Reason).To(Equal(run.ReasonPreempted))
			Expect(finish(newer).Status).To(Equal(run.Completed))
		})

		It("keeps the older run cancelled in the store and closes its call record", func() {
			finish(older)
			finish(newer)
			stored, err := h.b.runs.Run(context.Background(), older.RunID())
			Expect(err).NotTo(HaveOccurred())
			Expect(stored.Status).To(Equal(ports.RunCancelled))
			rec, ok := h.b.record(conversation.ProviderCallID(older.RunID(), 0, 0))
			Expect(ok).To(BeTrue())
			Expect(rec.Status.String()).To(Equal("cancelled"))
			Expect(rec.Timing.Finished.IsZero()).To(BeFalse())
		})
	})

	When("the newer run belongs to another engine (another process)", func() {
		It("ends the older run cancelled at its next write", func() {
			h.server.Enqueue(stalled("old ", "answer"))
			older := h.start(h.prepared(userText("e1", "first")), &runtest.Transport{})
			Eventually(h.server.Requests).Should(HaveLen(1))
			other := *h
			other.restart()
			h.enqueue(text("second answer"))
			newer := other.start(other.prepared(userText("e2", "second")), &runtest.Transport{})
			Expect(finish(newer).Status).To(Equal(run.Completed))
			h.server.Release()
			o := finish(older)
			Expect(o.Status).To(Equal(run.Cancelled))
			Expect(o.Reason).To(Equal(run.ReasonPreempted))
			Expect(strings.Join(ids(h.history()), " ")).NotTo(ContainSubstring(older.RunID()))
		})
	})

	It("lets exactly one of two concurrently started runs complete", func() {
		h.server.Enqueue(stalled("a"), stalled("b"))
		var (
			wg      sync.WaitGroup
			handles [2]*run.Handle
		)
		for i := range handles {
			wg.Add(1)
			go func() {
				defer GinkgoRecover()
				defer wg.Done()
				msg := userText([]string{"e1", "e2"}[i], "go")
				handles[i] = h.start(h.prepared(msg), &runtest.Transport{})
			}()
		}
		wg.Wait()
		h.server.Release()
		var statuses []run.Status
		for _, hd := range handles {
			statuses = append(statuses, finish(hd).Status)
		}
		Expect(statuses).To(ConsistOf(run.Completed, run.Cancelled))
		validHistory(h.history())
		Expect(h.history()[len(h.history())-1].Role()).To(Equal(llm.RoleAssistant))
	})
})
