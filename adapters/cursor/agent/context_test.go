package agent_test

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/domain/turn"
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

var _ = Describe("Handler giving the model the open files' contents (RequestContext.file_contents)", func() {
	f := useFixture()

	// withFiles is a user message whose request context carries the
	// contents of the open files.
	withFiles := func(messageID, text string, files map[string]string) *agentv1.ConversationAction {
		a := cursortest.UserMessageAction(messageID, text)
		a.GetUserMessageAction().RequestContext = &agentv1.RequestContext{FileContents: files}
		return a
	}
	// turnWith plays one turn of conv and returns the body the provider
	// received for it.
	n := 0
	turnWith := func(conv string, a *agentv1.ConversationAction) string {
		n++
		f.h.reply(providertest.Turn{ID: fmt.Sprintf("r%d", n), Text: []string{"Seen."}})
		st := finished(open(f.c.WithRequestID(fmt.Sprintf("req-files-%d", n)), cursortest.Request(conv, "kg-model", a, f.c.Checkpoint())))
		Expect(st.EndError()).To(BeNil())
		reqs := f.h.provider.Requests()
		return string(reqs[len(reqs)-1].Body)
	}
	const tag = `<open_file_contents>`
	BeforeEach(func() { n = 0 })

	It("shows the model the contents of the file it is asked about", func() {
		body := turnWith("conv-files-1", withFiles("m1", "What does main.go return?",
			map[string]string{"main.go": "package main\n\nfunc answer() int { return 42 }\n"}))
		Expect(body).To(ContainSubstring(`func answer() int { return 42 }`))
		Expect(body).To(ContainSubstring(`<file path=\"main.go\">`))
	})

	It("sends unchanged contents once, so the prompt only grows, and appends a new message when they change", func() {
		files := map[string]string{"main.go": "package main\n\nfunc answer() int { return 42 }\n", "util.go": "package main\n"}
		first := turnWith("conv-files-2", withFiles("m1", "Look at main.go.", files))
		second := turnWith("conv-files-2", withFiles("m2", "And again?", files))
		Expect(strings.Count(second, tag)).To(Equal(1), "unchanged contents add nothing")
		prev, err := providertest.PromptSegments(mainKind, []byte(first))
		Expect(err).NotTo(HaveOccurred())
		next, err := providertest.PromptSegments(mainKind, []byte(second))
		Expect(err).NotTo(HaveOccurred())
		r := providertest.Retained(prev, next)
		Expect(r.Extends()).To(BeTrue(), "changed at %s", r.Changed)
		Expect(appended(next, r)).To(And(ContainSubstring("And again?"), Not(ContainSubstring(tag))))

		files["main.go"] = "package main\n\nfunc answer() int { return 43 }\n"
		third := turnWith("conv-files-2", withFiles("m3", "Now?", files))
		Expect(strings.Count(third, tag)).To(Equal(2), "changed contents append a message of their own")
		Expect(third).To(And(ContainSubstring("return 42"), ContainSubstring("return 43")))
		Expect(strings.Index(third, "return 43")).To(BeNumerically(">", strings.Index(third, "And again?")))
	})

	It("bounds the contents and says what it left out", func() {
		line := strings.Repeat("x", 1023) + "\n"
		big := strings.Repeat(line, 40) // 40 KiB: over the cap of one file
		body := turnWith("conv-files-3", withFiles("m1", "Summarise.", map[string]string{
			"a.go": big, "b.go": big, "c.go": big}))
		// a.go shows the 32 KiB one file may show, b.go what is left of the
		// channel's 64 KiB (less the tags and paths), c.go nothing.
		Expect(turn.FileContentLimit).To(Equal(32 << 10))
		Expect(turn.FileContentsLimit).To(Equal(64 << 10))
		Expect(body).To(ContainSubstring("… (8192 more bytes of a.go not shown)"))
		m := regexp.MustCompile(`… \((\d+) more bytes of b.go not shown\)`).FindStringSubmatch(body)
		Expect(m).To(HaveLen(2))
		leftB, err := strconv.Atoi(m[1])
		Expect(err).NotTo(HaveOccurred())
		Expect(leftB).To(And(BeNumerically(">", 8192), BeNumerically("<", 8192+2048)))
		Expect(body).To(ContainSubstring("… (40960 more bytes of c.go not shown)"))
		Expect(body).NotTo(ContainSubstring(`<file path=\"c.go\">`))
		Expect(strings.Count(body, strings.Repeat("x", 1023))).To(Equal(32 + (len(big)-leftB)/len(line)))
	})
})
