package porttest

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/callrecord"
	"keygate/domain/compaction"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/toolround"
	"keygate/ports"
)

// filled is a conversation with something in every table a conversation
// reaches: messages with an image of its own and an image shared with
// another conversation, a run with a tool round and a committed result, a
// detailed call with its request, chunks and kept prompt, a context anchor
// and a routing affinity.
type filled struct {
	conv, run, call, ownImage, sharedImage string
	head                                   conversation.Checkpoint
}

func fill(ctx context.Context, h Harness, sharedImage string) filled {
	GinkgoHelper()
	st := h.Stores
	f := filled{conv: uniq("conv"), sharedImage: sharedImage}
	f.run, f.call = f.conv+"-run", f.conv+"-call"
	own := []byte("image of " + f.conv)
	f.ownImage = ports.BlobID(own)
	Expect(st.Blobs.Put(ctx, f.ownImage, own)).To(Succeed())
	root, err := st.Conversations.Open(ctx, f.conv)
	Expect(err).NotTo(HaveOccurred())
	_, err = st.Runs.Claim(ctx, ports.RunClaim{RunID: f.run, ConversationID: f.conv, CursorRequestID: "req-" + f.conv, Kind: "root"})
	Expect(err).NotTo(HaveOccurred())
	head := apply(ctx, st.Conversations, f.run, conversation.AppendTo(root,
		text("u", "deploy with my key"), image("i1", f.ownImage), image("i2", sharedImage)))
	round, err := toolround.New(conversation.ToolRoundID(f.run, 0), llm.Assistant{Text: "reading", Calls: []llm.ToolCall{
		{Index: 0, CallID: "c1", Name: "Read", Arguments: []byte(`{"path":".env"}`)}}})
	Expect(err).NotTo(HaveOccurred())
	Expect(st.ToolRounds.Start(ctx, f.run, head.ID(), round)).To(Succeed())
	c, err := st.ToolRounds.Commit(ctx, f.run, round.ID(), llm.ToolResult{CallID: "c1", Content: "AWS_KEY=..."})
	Expect(err).NotTo(HaveOccurred())
	f.head = c.Checkpoint

	start := time.Now().UTC().Truncate(time.Millisecond)
	rec := callrecord.Record{CallID: f.call, RunID: f.run, ConversationID: f.conv,
		Model:  callrecord.ModelSnapshot{ProviderKind: llm.ProviderAnthropic, RequestURL: "https://x/v1/messages", ModelID: "claude"},
		Status: callrecord.StatusRunning, Timing: callrecord.Timing{RequestStarted: start}, Detailed: true}
	Expect(st.Calls.Start(ctx, rec)).To(Succeed())
	Expect(st.Calls.Request(ctx, f.call, callrecord.Request{Method: "POST", URL: rec.Model.RequestURL, Body: []byte(`{"prompt":"deploy with my key"}`)})).To(Succeed())
	Expect(st.Calls.Chunks(ctx, f.call, []callrecord.Chunk{{Seq: 0, Data: []byte("data: sure\n\n")}})).To(Succeed())
	failed := rec
	failed.Status, failed.ErrorClass, failed.ErrorMessage = callrecord.StatusError, llm.ErrorBadRequest, "the provider quoted: deploy with my key"
	failed.Timing.Finished = start.Add(time.Second)
	Expect(st.Calls.Finish(ctx, failed)).To(Succeed())
	req := samplePrompt()
	Expect(st.Prompts.PutPrompt(ctx, f.call, ports.StoredPrompt{At: start, Request: &req})).To(Succeed())
	Expect(st.ContextAnchors.PutContextAnchor(ctx, f.conv, compaction.Anchor{ContextTokens: 1200, MessageCount: 4})).To(Succeed())
	Expect(st.RouteAffinity.SetAffinity(ctx, f.conv, "alias-1", "target-1", start)).To(Succeed())
	return f
}

// intact fails unless everything fill stored for f is there.
func intact(ctx context.Context, h Harness, f filled) {
	GinkgoHelper()
	st := h.Stores
	head, msgs, err := st.Conversations.Load(ctx, f.head.ID())
	Expect(err).NotTo(HaveOccurred())
	Expect(head.ID()).To(Equal(f.head.ID()))
	Expect(msgs).NotTo(BeEmpty())
	for _, id := range []string{f.ownImage, f.sharedImage} {
		Expect(st.Blobs.Has(ctx, id)).To(BeTrue())
	}
	_, err = st.Prompts.Prompt(ctx, f.call)
	Expect(err).NotTo(HaveOccurred())
	_, chunks, err := h.Calls.CallDetail(ctx, f.call)
	Expect(err).NotTo(HaveOccurred())
	Expect(chunks).To(HaveLen(1))
	_, err = st.ContextAnchors.ContextAnchor(ctx, f.conv)
	Expect(err).NotTo(HaveOccurred())
	Expect(st.RouteAffinity.Affinity(ctx, f.conv, "alias-1")).To(Equal("target-1"))
	rec, err := h.Calls.CallRecord(ctx, f.call)
	Expect(err).NotTo(HaveOccurred())
	Expect(rec.ErrorMessage).NotTo(BeEmpty())
}

func describeErase(open Factory) {
	Describe("ConversationEraser", func() {
		var (
			h      Harness
			ctx    context.Context
			shared string
		)
		BeforeEach(func() {
			h, ctx = open(), context.Background()
			data := []byte("a picture two conversations attached " + uniq("img"))
			shared = ports.BlobID(data)
			Expect(h.Stores.Blobs.Put(ctx, shared, data)).To(Succeed())
		})

		It("leaves nothing of an erased conversation but its call records' figures, and another conversation untouched", func() {
			gone, kept := fill(ctx, h, shared), fill(ctx, h, shared)
			Expect(h.Stores.Eraser.EraseConversation(ctx, gone.conv)).To(Succeed())

			st := h.Stores
			_, err := st.Conversations.Head(ctx, gone.conv)
			Expect(err).To(MatchError(ports.ErrNotFound), "the conversation")
			_, _, err = st.Conversations.Load(ctx, gone.head.ID())
			Expect(err).To(MatchError(ports.ErrNotFound), "its checkpoints")
			Expect(st.Blobs.Has(ctx, gone.ownImage)).To(BeFalse(), "its own image")
			Expect(st.Blobs.Has(ctx, shared)).To(BeTrue(), "an image another conversation still uses")
			_, err = st.Prompts.Prompt(ctx, gone.call)
			Expect(err).To(MatchError(ports.ErrNotFound), "its kept prompts")
			req, chunks, err := h.Calls.CallDetail(ctx, gone.call)
			Expect(err == nil && (len(req.Body) > 0 || len(chunks) > 0)).To(BeFalse(), "its calls' details")
			_, err = st.ContextAnchors.ContextAnchor(ctx, gone.conv)
			Expect(err).To(MatchError(ports.ErrNotFound), "its context anchor")
			_, err = st.RouteAffinity.Affinity(ctx, gone.conv, "alias-1")
			Expect(err).To(MatchError(ports.ErrNotFound), "its routing affinity")
			_, err = st.ToolRounds.Round(ctx, conversation.ToolRoundID(gone.run, 0))
			Expect(err).To(MatchError(ports.ErrNotFound), "its tool rounds")
			rec, err := h.Calls.CallRecord(ctx, gone.call)
			Expect(err).NotTo(HaveOccurred(), "the call record stays for spend and audit")
			Expect(rec.Model.ModelID).To(Equal("claude"))
			Expect(rec.ErrorMessage).To(BeEmpty(), "without the provider's text")

			intact(ctx, h, kept)
			Expect(st.Eraser.EraseConversation(ctx, gone.conv)).To(MatchError(ports.ErrNotFound))
		})

		It("erases the last user of a shared image with it, and a new conversation may reuse the id", func() {
			a, b := fill(ctx, h, shared), fill(ctx, h, shared)
			Expect(h.Stores.Eraser.EraseConversation(ctx, a.conv)).To(Succeed())
			Expect(h.Stores.Eraser.EraseConversation(ctx, b.conv)).To(Succeed())
			Expect(h.Stores.Blobs.Has(ctx, shared)).To(BeFalse())
			_, err := h.Stores.Conversations.Open(ctx, a.conv)
			Expect(err).NotTo(HaveOccurred())
		})

		It("lists conversations idle since before a cutoff, oldest first and bounded, without one that is running", func() {
			a := fill(ctx, h, shared)
			Expect(h.Stores.Runs.Finish(ctx, a.run, ports.RunEnd{Status: ports.RunCompleted})).To(Succeed())
			running := fill(ctx, h, shared)
			ids, err := h.Stores.Eraser.StaleConversations(ctx, time.Now().Add(time.Hour), 1000)
			Expect(err).NotTo(HaveOccurred())
			Expect(ids).To(ContainElement(a.conv))
			Expect(ids).NotTo(ContainElement(running.conv))
			ids, err = h.Stores.Eraser.StaleConversations(ctx, time.Now().Add(-time.Hour), 1000)
			Expect(err).NotTo(HaveOccurred())
			Expect(ids).NotTo(ContainElement(a.conv))
			ids, err = h.Stores.Eraser.StaleConversations(ctx, time.Now().Add(time.Hour), 1)
			Expect(err).NotTo(HaveOccurred())
			Expect(ids).To(HaveLen(1))
		})
	})
}
