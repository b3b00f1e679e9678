package agent_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// streamed is a tool call whose argument text arrives in pieces of size
// bytes, as a model streams it.
func streamed(id, name string, args map[string]any, size int) providertest.Call {
	raw, err := json.Marshal(args)
	Expect(err).NotTo(HaveOccurred())
	var pieces []string
	for i := 0; i < len(raw); i += size {
		pieces = append(pieces, string(raw[i:min(i+size, len(raw))]))
	}
	return providertest.Call{ID: id, Name: name, Arguments: pieces}
}

// execKinds lists the kinds of the execs the workspace received for a call.
func execKinds(ws *cursortest.Workspace, callID string) []string {
	var kinds []string
	for _, ex := range ws.Execs() {
		if ex.GetExecId() == callID {
			kinds = append(kinds, cursortest.Kind(&agentv1.AgentServerMessage{Message: &agentv1.AgentServerMessage_ExecServerMessage{ExecServerMessage: ex}}))
		}
	}
	return kinds
}

var _ = Describe("Handler serving Write and StrReplace, as the client's edit card shows them", func() {
	f := useFixture()

	When("the model overwrites an existing file", func() {
		const contents = "alpha\nbeta \"quoted\" é\ngamma\n"
		var st *cursortest.Stream
		BeforeEach(func() {
			f.h.reply(
				providertest.Turn{ID: "r1", Calls: []providertest.Call{
					streamed("c_w", "Write", map[string]any{"path": "a.txt", "contents": contents}, 5)}},
				providertest.Turn{ID: "r2", Text: []string{"Written."}},
			)
			st = finished(open(f.c, cursortest.RunRequest("conv-write", "kg-model", "Rewrite a.txt")))
			Expect(st.EndError()).To(BeNil())
		})

		It("streams the content into the edit card while the model writes the arguments, before the call starts", func() {
			Expect(cursortest.EditStream(st.Content(), "c_w")).To(Equal(contents))
			ks := cursortest.Kinds(st.Content())
			firstDelta := slices.Index(ks, "tool_call_delta")
			Expect(firstDelta).To(BeNumerically(">", slices.Index(ks, "partial_tool_call")))
			Expect(firstDelta).To(BeNumerically("<", slices.Index(ks, "tool_call_started")))
		})

		It("reads the file before writing it, so the card shows what the write replaced", func() {
			Expect(execKinds(f.ws, "c_w")).To(Equal([]string{"exec:read_args", "exec:write_args"}))
			s := completed(st, "c_w").GetEditToolCall().GetResult().GetSuccess()
			Expect(s.GetBeforeFullFileContent()).To(Equal("alpha\n"))
			Expect(s.GetAfterFullFileContent()).To(Equal(contents))
			Expect(os.ReadFile(filepath.Join(f.ws.Root, "a.txt"))).To(Equal([]byte(contents)))
		})

		It("completes the card with the unified diff and its line counts", func() {
			s := completed(st, "c_w").GetEditToolCall().GetResult().GetSuccess()
			Expect(s.GetDiffString()).To(Equal("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1,3 @@\n alpha\n+beta \"quoted\" é\n+gamma\n"))
			Expect(s.GetLinesAdded()).To(BeEquivalentTo(2))
			Expect(s.GetLinesRemoved()).To(BeZero())
			Expect(s.GetMessage()).To(Equal("Wrote 3 lines to a.txt"))
			Expect(s.GetPath()).To(Equal("a.txt"))
			Expect(completed(st, "c_w").GetEditToolCall().GetArgs().GetStreamContent()).To(Equal(contents))
		})
	})

	It("writes a new file as one: the read finds nothing, the card has an empty before and every line added", func() {
		f.h.reply(
			providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_new", "Write", `{"path":"new/b.txt","contents":"one\ntwo\n"}`)}},
			providertest.Turn{ID: "r2", Text: []string{"Created."}},
		)
		st := finished(open(f.c, cursortest.RunRequest("conv-new", "kg-model", "Create b")))
		Expect(st.EndError()).To(BeNil())
		s := completed(st, "c_new").GetEditToolCall().GetResult().GetSuccess()
		Expect(s.BeforeFullFileContent).NotTo(BeNil())
		Expect(s.GetBeforeFullFileContent()).To(BeEmpty())
		Expect(s.GetLinesAdded()).To(BeEquivalentTo(2))
		Expect(s.GetDiffString()).To(ContainSubstring("+one\n+two\n"))
	})

	It("streams a StrReplace's new text and completes its card with the diff of the replacement", func() {
		Expect(os.WriteFile(filepath.Join(f.ws.Root, "main.go"), []byte("package main\n\nfunc f() int { return 1 }\n"), 0o644)).To(Succeed())
		f.h.reply(
			providertest.Turn{ID: "r1", Calls: []providertest.Call{streamed("c_e", "StrReplace",
				map[string]any{"path": "main.go", "old_string": "return 1", "new_string": "return 2"}, 4)}},
			providertest.Turn{ID: "r2", Text: []string{"Edited."}},
		)
		st := finished(open(f.c, cursortest.RunRequest("conv-edit-card", "kg-model", "Return 2")))
		Expect(st.EndError()).To(BeNil())
		Expect(cursortest.EditStream(st.Content(), "c_e")).To(Equal("return 2"))
		s := completed(st, "c_e").GetEditToolCall().GetResult().GetSuccess()
		Expect(s.GetDiffString()).To(ContainSubstring("-func f() int { return 1 }\n+func f() int { return 2 }\n"))
		Expect([]int32{s.GetLinesAdded(), s.GetLinesRemoved()}).To(Equal([]int32{1, 1}))
		Expect(s.GetBeforeFullFileContent()).To(ContainSubstring("return 1"))
	})
})

var _ = Describe("Handler serving Write, as the model reads its result", func() {
	f := useFixture()

	// A person counts the lines of a file: a last line needs no newline, and
	// a newline ending the file opens no line of its own.
	DescribeTable("says how many lines it wrote, counted as a person counts them",
		func(contents, said string) {
			f.h.reply(
				providertest.Turn{ID: "r1", Calls: []providertest.Call{
					streamed("c_w", "Write", map[string]any{"path": "n.txt", "contents": contents}, 64)}},
				providertest.Turn{ID: "r2", Text: []string{"Done."}},
			)
			st := finished(open(f.c, cursortest.RunRequest("conv-lines", "kg-model", "Write n.txt")))
			Expect(st.EndError()).To(BeNil())
			Expect(completed(st, "c_w").GetEditToolCall().GetResult().GetSuccess().GetMessage()).To(Equal(said))
			Expect(f.h.provider.Requests()).To(HaveLen(2))
			Expect(string(f.h.provider.Requests()[1].Body)).To(ContainSubstring(said))
		},
		Entry("an empty file", "", "Wrote 0 lines to n.txt"),
		Entry("one line without a newline", "a", "Wrote 1 line to n.txt"),
		Entry("one line with its newline", "a\n", "Wrote 1 line to n.txt"),
		Entry("two lines, the last without a newline", "a\nb", "Wrote 2 lines to n.txt"),
		Entry("two lines with their newlines", "a\nb\n", "Wrote 2 lines to n.txt"),
		Entry("an empty line between two", "a\n\nb\n", "Wrote 3 lines to n.txt"),
	)
})
