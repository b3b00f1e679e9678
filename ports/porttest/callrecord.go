package porttest

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/callrecord"
	"keygate/domain/llm"
	"keygate/ports"
)

func describeCallRecords(open Factory) {
	Describe("CallRecorder", func() {
		var (
			h   Harness
			ctx context.Context
			rec callrecord.Record
		)
		BeforeEach(func() {
			h, ctx = open(), context.Background()
			start := time.Now().UTC().Truncate(time.Millisecond)
			rec = callrecord.Record{
				CallID: uniq("call"), RunID: uniq("run"), ConversationID: uniq("conv"), ProviderCallIndex: 0,
				Model:  callrecord.ModelSnapshot{ProviderKind: llm.ProviderAnthropic, RequestURL: "https://x/v1/messages", ModelID: "claude"},
				Status: callrecord.StatusRunning, Timing: callrecord.Timing{RequestStarted: start},
				Detailed: true,
			}
		})

		It("stores a running record and finishes it exactly once", func() {
			Expect(h.Stores.Calls.Start(ctx, rec)).To(Succeed())
			done, err := rec.Complete(rec.Timing.RequestStarted.Add(1500*time.Millisecond), llm.FinishStop)
			Expect(err).NotTo(HaveOccurred())
			done.Usage = &llm.Usage{Input: 3, Output: 4, Known: llm.UsageInput | llm.UsageOutput}
			Expect(h.Stores.Calls.Finish(ctx, done)).To(Succeed())
			got, err := h.Calls.CallRecord(ctx, rec.CallID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Status).To(Equal(callrecord.StatusCompleted))
			Expect(got.Finish).To(Equal(llm.FinishStop))
			Expect(got.Usage).To(Equal(done.Usage))
			Expect(got.Timing.Duration()).To(Equal(1500 * time.Millisecond))
			Expect(got.Timing.FirstText.IsZero()).To(BeTrue())
			Expect(h.Stores.Calls.Finish(ctx, done)).To(MatchError(callrecord.ErrNotRunning))
		})

		It("keeps the kind of call a record names, and reads a record without one as an Agent call", func() {
			tab := rec
			tab.CallID, tab.Kind = uniq("call"), callrecord.KindTab
			Expect(h.Stores.Calls.Start(ctx, tab)).To(Succeed())
			Expect(h.Stores.Calls.Start(ctx, rec)).To(Succeed())
			done, err := tab.Complete(tab.Timing.RequestStarted.Add(time.Second), llm.FinishStop)
			Expect(err).NotTo(HaveOccurred())
			Expect(h.Stores.Calls.Finish(ctx, done)).To(Succeed())
			got, err := h.Calls.CallRecord(ctx, tab.CallID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Kind).To(Equal(callrecord.KindTab))
			got, err = h.Calls.CallRecord(ctx, rec.CallID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Kind).To(Equal(callrecord.KindAgent))
		})

		It("keeps the client that asked for a call of the compatible API, and reads a record without one as none", func() {
			api := rec
			api.CallID, api.Kind, api.Client = uniq("call"), callrecord.KindAPI, "claude-code"
			Expect(h.Stores.Calls.Start(ctx, api)).To(Succeed())
			Expect(h.Stores.Calls.Start(ctx, rec)).To(Succeed())
			done, err := api.Complete(api.Timing.RequestStarted.Add(time.Second), llm.FinishStop)
			Expect(err).NotTo(HaveOccurred())
			Expect(h.Stores.Calls.Finish(ctx, done)).To(Succeed())
			got, err := h.Calls.CallRecord(ctx, api.CallID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Kind).To(Equal(callrecord.KindAPI))
			Expect(got.Client).To(Equal("claude-code"))
			got, err = h.Calls.CallRecord(ctx, rec.CallID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Client).To(BeEmpty())
		})

		It("keeps how the router routed the attempt", func() {
			rec.Route = callrecord.Route{ID: "alias-1", Target: "model-b", Provider: "prov-b", Key: "key-2", Attempt: 2,
				Moved: "failover: model-a answered 429"}
			Expect(h.Stores.Calls.Start(ctx, rec)).To(Succeed())
			done, err := rec.Complete(rec.Timing.RequestStarted.Add(time.Second), llm.FinishStop)
			Expect(err).NotTo(HaveOccurred())
			Expect(h.Stores.Calls.Finish(ctx, done)).To(Succeed())
			got, err := h.Calls.CallRecord(ctx, rec.CallID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Route).To(Equal(rec.Route))
		})

		It("keeps a filtered call's finish, class and categories", func() {
			Expect(h.Stores.Calls.Start(ctx, rec)).To(Succeed())
			done, err := rec.Filtered(rec.Timing.RequestStarted.Add(time.Second), []llm.FilterHit{{Category: "protected_material_text"}})
			Expect(err).NotTo(HaveOccurred())
			Expect(h.Stores.Calls.Finish(ctx, done)).To(Succeed())
			got, err := h.Calls.CallRecord(ctx, rec.CallID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Status).To(Equal(callrecord.StatusError))
			Expect(got.Finish).To(Equal(llm.FinishContentFilter))
			Expect(got.ErrorClass).To(Equal(llm.ErrorContentFilter))
			Expect(got.ErrorMessage).To(ContainSubstring("protected_material_text"))
		})

		It("keeps the request and the raw chunks of a detailed call in order", func() {
			Expect(h.Stores.Calls.Start(ctx, rec)).To(Succeed())
			req := callrecord.Request{Method: "POST", URL: rec.Model.RequestURL, Headers: []callrecord.Header{{Name: "Content-Type", Value: "application/json"}}, Body: []byte(`{"a":1}`)}
			Expect(h.Stores.Calls.Request(ctx, rec.CallID, req)).To(Succeed())
			Expect(h.Stores.Calls.Chunks(ctx, rec.CallID, []callrecord.Chunk{{Seq: 0, Offset: time.Millisecond, Data: []byte("data: 1\n\n")}})).To(Succeed())
			Expect(h.Stores.Calls.Chunks(ctx, rec.CallID, []callrecord.Chunk{{Seq: 1, Offset: 2 * time.Millisecond, Data: []byte("data: 2\n\n")}})).To(Succeed())
			gotReq, chunks, err := h.Calls.CallDetail(ctx, rec.CallID)
			Expect(err).NotTo(HaveOccurred())
			Expect(gotReq).To(Equal(req))
			Expect(chunks).To(HaveLen(2))
			Expect(chunks[1].Data).To(Equal([]byte("data: 2\n\n")))
			Expect(chunks[1].Offset).To(Equal(2 * time.Millisecond))
		})

		It("closes the running calls of a preempted run as cancelled", func() {
			conv := uniq("conv")
			_, err := h.Stores.Conversations.Open(ctx, conv)
			Expect(err).NotTo(HaveOccurred())
			rec.RunID, rec.ConversationID = conv+"-old", conv
			_, err = h.Stores.Runs.Claim(ctx, ports.RunClaim{RunID: rec.RunID, ConversationID: conv, Kind: "root"})
			Expect(err).NotTo(HaveOccurred())
			Expect(h.Stores.Calls.Start(ctx, rec)).To(Succeed())
			_, err = h.Stores.Runs.Claim(ctx, ports.RunClaim{RunID: conv + "-new", ConversationID: conv, Kind: "root"})
			Expect(err).NotTo(HaveOccurred())
			got, err := h.Calls.CallRecord(ctx, rec.CallID)
			Expect(err).NotTo(HaveOccurred())
			Expect(got.Status).To(Equal(callrecord.StatusCancelled))
			Expect(got.Timing.Finished.IsZero()).To(BeFalse())
		})

		It("returns ErrNotFound for an unknown call", func() {
			_, err := h.Calls.CallRecord(ctx, uniq("call"))
			Expect(err).To(MatchError(ports.ErrNotFound))
		})
	})
}
