package agent_test

import (
	"encoding/base64"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/ports"
)

var _ = Describe("Handler compiling what the client knows", func() {
	f := useFixture()

	It("reads request-context parts it was not given from the client's KV store", func() {
		rules, err := proto.Marshal(&agentv1.RequestContextRulesPart{Rules: []*agentv1.CursorRule{
			{FullPath: "/ws/.cursor/rules/style.mdc", Content: "Always answer in haiku."}}})
		Expect(err).NotTo(HaveOccurred())
		id := f.c.PutBlob(rules)
		action := cursortest.UserMessageAction("m1", "Hello")
		action.RequestContextParts = &agentv1.RequestContextPartReferences{RulesBlobId: id, RulesByteLength: uint32(len(rules)),
			DynamicContext: &agentv1.RequestContext{Env: &agentv1.RequestContextEnv{OsVersion: "linux 6.1", Shell: "bash"}}}
		f.h.reply(providertest.Turn{ID: "r1", Text: []string{"Quiet words here."}})
		st := finished(open(f.c, cursortest.Request("conv-parts", "kg-model", action, nil)))
		Expect(st.EndError()).To(BeNil())
		Expect(cursortest.Kinds(st.Content())[0]).To(Equal("kv_get"))
		body := string(f.h.provider.Requests()[0].Body)
		Expect(body).To(And(ContainSubstring("Always answer in haiku."), ContainSubstring("linux 6.1")))
	})

	It("restores a forked conversation from the checkpoint the client sends", func() {
		f.h.reply(providertest.Turn{ID: "r1", Text: []string{"The secret word is lantern."}})
		finished(open(f.c, cursortest.RunRequest("conv-parent", "kg-model", "Pick a secret word")))
		f.h.reply(providertest.Turn{ID: "r2", Text: []string{"It was lantern."}})
		st := finished(open(f.c.WithRequestID("req-fork"), cursortest.Request("conv-fork", "kg-model",
			cursortest.UserMessageAction("m2", "What was the word?"), f.c.Checkpoint())))
		Expect(st.EndError()).To(BeNil())
		Expect(cursortest.Kinds(st.Content())).To(ContainElement("kv_get"))
		Expect(string(f.h.provider.Requests()[1].Body)).To(ContainSubstring("The secret word is lantern."))
	})

	It("streams thinking before the text and records it as a step", func() {
		f.h.reply(providertest.Turn{ID: "r1", Thinking: []string{"Let me ", "think."}, Signature: "sig-1", Text: []string{"Answer."}})
		st := finished(open(f.c, cursortest.RunRequest("conv-think", "kg-model", "Think first")))
		Expect(st.EndError()).To(BeNil())
		ks := cursortest.Kinds(st.Content())
		Expect(ks).To(ContainElements("thinking", "thinking_completed", "text"))
		Expect(indexOf(ks, "thinking_completed")).To(BeNumerically("<", indexOf(ks, "text")))
	})
})

func indexOf(ks []string, k string) int {
	for i, v := range ks {
		if v == k {
			return i
		}
	}
	return -1
}

var _ = Describe("Handler receiving an attached image", func() {
	f := useFixture()

	It("stores the image as a blob and sends its bytes to the model", func() {
		h, c := f.h, f.c
		png := []byte("\x89PNG\r\n\x1a\nfake-image-bytes")
		id := c.PutBlob(png)
		action := cursortest.UserMessageAction("m1", "What is in this picture?")
		action.GetUserMessageAction().GetUserMessage().SelectedContext = &agentv1.SelectedContext{SelectedImages: []*agentv1.SelectedImage{{
			Uuid: "img-1", MimeType: "image/png", DataOrBlobId: &agentv1.SelectedImage_BlobId{BlobId: id}}}}
		h.reply(providertest.Turn{ID: "r1", Text: []string{"A fake image."}})
		st := finished(open(c, cursortest.Request("conv-img", "kg-model", action, nil)))
		Expect(st.EndError()).To(BeNil())
		Expect(cursortest.Kinds(st.Content())[0]).To(Equal("kv_get"))
		Expect(string(h.provider.Requests()[0].Body)).To(ContainSubstring(base64.StdEncoding.EncodeToString(png)))
		ok, err := h.stores.Blobs.Has(ctx(), ports.BlobID(png))
		Expect(err).NotTo(HaveOccurred())
		Expect(ok).To(BeTrue())
	})
})
