package tools_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/tools"
	agentv1 "keygate/gen/cursor/agent/v1"
)

func readNotFound() *agentv1.ExecClientMessage {
	return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ReadResult{ReadResult: &agentv1.ReadResult{
		Result: &agentv1.ReadResult_FileNotFound{FileNotFound: &agentv1.ReadFileNotFound{Path: "a.txt"}}}}}
}

func written(after *string) *agentv1.ExecClientMessage {
	return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_WriteResult{WriteResult: &agentv1.WriteResult{
		Result: &agentv1.WriteResult_Success{Success: &agentv1.WriteSuccess{Path: "a.txt", FileContentAfterWrite: after}}}}}
}

var _ = Describe("Write and StrReplace", func() {
	It("reads before overwriting, so the card shows what the write replaced, and asks for the text after the write", func() {
		c := newCall("Write", `{"path":"a.txt","contents":"alpha\nBETA\ngamma\n"}`)
		Expect(c.Start().Exec.GetReadArgs().GetPath()).To(Equal("a.txt"))
		w := c.OnExec(readOK("alpha\nbeta\ngamma\n")).Exec.GetWriteArgs()
		Expect(w.GetFileText()).To(Equal("alpha\nBETA\ngamma\n"))
		Expect(w.GetReturnFileContentAfterWrite()).To(BeTrue())
		c.OnExec(written(nil))
		s := c.Card().GetEditToolCall().GetResult().GetSuccess()
		Expect(s.GetBeforeFullFileContent()).To(Equal("alpha\nbeta\ngamma\n"))
		Expect(s.GetAfterFullFileContent()).To(Equal("alpha\nBETA\ngamma\n"))
		Expect(s.GetDiffString()).To(Equal("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma\n"))
		Expect(s.GetLinesAdded()).To(BeEquivalentTo(1))
		Expect(s.GetLinesRemoved()).To(BeEquivalentTo(1))
		Expect(s.GetMessage()).To(Equal("Wrote 3 lines to a.txt"))
		Expect(s.GetPath()).To(Equal("a.txt"))
	})

	It("writes a file that does not exist yet as a new file: empty before, every line added", func() {
		c := newCall("Write", `{"path":"a.txt","contents":"one\ntwo\n"}`)
		c.Start()
		Expect(c.OnExec(readNotFound()).Exec.GetWriteArgs()).NotTo(BeNil(), "not found is normal before a write")
		done := c.OnExec(written(nil))
		Expect(done.Result.IsError).To(BeFalse())
		s := c.Card().GetEditToolCall().GetResult().GetSuccess()
		Expect(s.BeforeFullFileContent).NotTo(BeNil())
		Expect(s.GetBeforeFullFileContent()).To(BeEmpty())
		Expect(s.GetLinesAdded()).To(BeEquivalentTo(2))
		Expect(s.GetLinesRemoved()).To(BeZero())
		Expect(s.GetDiffString()).To(ContainSubstring("@@ -0,0 +1,2 @@\n+one\n+two\n"))
	})

	It("shows the text the client reports after the write (a formatter changed it)", func() {
		c := newCall("StrReplace", `{"path":"a.txt","old_string":"x=1","new_string":"x = 2"}`)
		c.Start()
		c.OnExec(readOK("x=1\n"))
		formatted := "x = 2 // formatted\n"
		c.OnExec(written(&formatted))
		s := c.Card().GetEditToolCall().GetResult().GetSuccess()
		Expect(s.GetAfterFullFileContent()).To(Equal(formatted))
		Expect(s.GetDiffString()).To(ContainSubstring("+x = 2 // formatted"))
	})

	It("shows the new text on the started card", func() {
		c := newCall("StrReplace", `{"path":"a.txt","old_string":"a","new_string":"b"}`)
		c.Start()
		Expect(c.Card().GetEditToolCall().GetArgs().GetStreamContent()).To(Equal("b"))
	})

	DescribeTable("gives a failed edit the card variant the client renders for it",
		func(name, args string, answers []*agentv1.ExecClientMessage, check func(*agentv1.EditResult)) {
			c := newCall(name, args)
			c.Start()
			var a tools.Action
			for _, m := range answers {
				a = c.OnExec(m)
			}
			Expect(a.Result.IsError).To(BeTrue())
			check(c.Card().GetEditToolCall().GetResult())
		},
		Entry("StrReplace on a missing file", "StrReplace", `{"path":"a.txt","old_string":"a","new_string":"b"}`,
			[]*agentv1.ExecClientMessage{readNotFound()},
			func(r *agentv1.EditResult) { Expect(r.GetFileNotFound().GetPath()).To(Equal("a.txt")) }),
		Entry("a write the client refused for lack of permission", "Write", `{"path":"a.txt","contents":"x"}`,
			[]*agentv1.ExecClientMessage{readNotFound(), {Message: &agentv1.ExecClientMessage_WriteResult{WriteResult: &agentv1.WriteResult{
				Result: &agentv1.WriteResult_PermissionDenied{PermissionDenied: &agentv1.WritePermissionDenied{Path: "a.txt", Error: "EACCES", IsReadonly: true}}}}}},
			func(r *agentv1.EditResult) {
				Expect(r.GetWritePermissionDenied().GetError()).To(Equal("EACCES"))
				Expect(r.GetWritePermissionDenied().GetIsReadonly()).To(BeTrue())
			}),
		Entry("a write the user rejected", "Write", `{"path":"a.txt","contents":"x"}`,
			[]*agentv1.ExecClientMessage{readNotFound(), {Message: &agentv1.ExecClientMessage_WriteResult{WriteResult: &agentv1.WriteResult{
				Result: &agentv1.WriteResult_Rejected{Rejected: &agentv1.WriteRejected{Path: "a.txt", Reason: "not now"}}}}}},
			func(r *agentv1.EditResult) { Expect(r.GetRejected().GetReason()).To(Equal("not now")) }),
		Entry("an old string that is not in the file", "StrReplace", `{"path":"a.txt","old_string":"zzz","new_string":"b"}`,
			[]*agentv1.ExecClientMessage{readOK("abc")},
			func(r *agentv1.EditResult) {
				Expect(r.GetError().GetModelVisibleError()).To(ContainSubstring("was not found"))
			}),
	)

	It("names the argument whose text the client's edit card shows while the model streams it", func() {
		Expect(tools.EditContentKeys("write")).To(ContainElement("contents"))
		Expect(tools.EditContentKeys("StrReplace")).To(Equal([]string{"new_string"}))
		Expect(tools.EditContentKeys("Shell")).To(BeNil())
	})
})
