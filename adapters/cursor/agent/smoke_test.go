package agent_test

import (
	"encoding/base64"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// The other specs run on mainKind; this one runs a whole turn on every
// provider protocol, through the real provider client: an attached image,
// thinking, a tool round of two calls (one streamed) and the answer.
var _ = Describe("Handler on every provider protocol", func() {
	DescribeTable("serves a turn with thinking, an image and a tool round, end to end",
		func(kind llm.ProviderKind) {
			f := newFixture(kind)
			h, c := f.h, f.c
			png := []byte("\x89PNG\r\n\x1a\nsmoke-image")
			action := cursortest.UserMessageAction("m1", "Look, read and run")
			action.GetUserMessageAction().GetUserMessage().SelectedContext = &agentv1.SelectedContext{SelectedImages: []*agentv1.SelectedImage{{
				Uuid: "img-1", MimeType: "image/png", DataOrBlobId: &agentv1.SelectedImage_BlobId{BlobId: c.PutBlob(png)}}}}
			h.reply(
				providertest.Turn{ID: "r1", Thinking: []string{"Let me ", "look."}, Signature: "sig-1", Text: []string{"Reading."},
					Calls: []providertest.Call{call("c_read", "Read", `{"path":"a.txt"}`), call("c_shell", "Shell", `{"command":"echo one; echo two"}`)},
					Usage: providertest.Usage{Input: 100, Output: 7}},
				providertest.Turn{ID: "r2", Text: []string{"All ", "done."}, Usage: providertest.Usage{Input: 150, Output: 3}},
			)
			st := finished(open(c, cursortest.Request("conv-smoke", "kg-model", action, nil)))
			Expect(st.EndError()).To(BeNil())

			reqs := h.provider.Requests()
			Expect(reqs).To(HaveLen(2))
			Expect(string(reqs[0].Body)).To(And(ContainSubstring(base64.StdEncoding.EncodeToString(png)), ContainSubstring(`"Read"`)))
			Expect(string(reqs[1].Body)).To(And(ContainSubstring("alpha"), ContainSubstring(`one\ntwo`), ContainSubstring("c_read"), ContainSubstring("c_shell")))

			ks := cursortest.Kinds(st.Content())
			Expect(slices.Index(ks, "thinking_completed")).To(BeNumerically("<", slices.Index(ks, "text")))
			Expect(ks).To(ContainElements("exec:read_args", "exec:shell_stream_args", "tool_call_delta"))
			Expect(completedOrder(st)).To(ConsistOf("c_read", "c_shell"))
			Expect(st.Texts()).To(Equal([]string{"Reading.", "All ", "done."}))
			Expect(ks[len(ks)-4:]).To(Equal([]string{"turn_ended", "checkpoint:staged", "checkpoint:settled", "checkpoint:settled"}))
			for _, m := range st.Content() {
				Expect(missingBlobs(c, m.GetConversationCheckpointUpdate())).To(BeEmpty())
				if te := m.GetInteractionUpdate().GetTurnEnded(); te != nil {
					Expect(te.GetOutputTokens()).To(BeEquivalentTo(10))
				}
			}
		},
		smokeEntries(),
	)
})

// smokeEntries is one entry per provider protocol in kinds.
func smokeEntries() []TableEntry {
	var out []TableEntry
	for _, k := range kinds {
		out = append(out, Entry(string(k), k))
	}
	return out
}
