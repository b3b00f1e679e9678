package tools_test

import (
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/tools"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// shellArgs starts a Shell call for command and returns its exec's args.
func shellArgs(command string) *agentv1.ShellArgs {
	raw, err := json.Marshal(map[string]any{"command": command})
	Expect(err).NotTo(HaveOccurred())
	c := tools.New(llm.ToolCall{CallID: "call-1", Name: "Shell", Arguments: raw},
		tools.Env{Now: func() time.Time { return time.UnixMilli(1000) }})
	a := c.Start()
	Expect(a.Exec).NotTo(BeNil())
	return a.Exec.GetShellStreamArgs()
}

func names(p *agentv1.ShellCommandParsingResult) []string {
	var out []string
	for _, e := range p.GetExecutableCommands() {
		out = append(out, e.GetName())
	}
	return out
}

func shellOut(ev *agentv1.ShellStream) *agentv1.ExecClientMessage {
	return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ShellStream{ShellStream: ev}}
}

var _ = Describe("Shell", func() {
	Describe("the exec's parse, from which the client decides what may run without asking", func() {
		It("lists every simple command of a compound command, those in a substitution included", func() {
			a := shellArgs(`cd src && go test ./... | tee out.log 2>/dev/null; echo "head: $(git rev-parse HEAD)"`)
			Expect(a.GetSimpleCommands()).To(Equal([]string{"cd src", "go test ./...", "tee out.log", `echo "head: $(git rev-parse HEAD)"`, "git rev-parse HEAD"}))
			p := a.GetParsingResult()
			Expect(p.GetParsingFailed()).To(BeFalse())
			Expect(names(p)).To(Equal([]string{"cd", "go", "tee", "echo", "git"}))
			Expect(p.GetHasCommandSubstitution()).To(BeTrue())
			Expect(p.GetExecutableCommands()[1].GetArgs()).To(Equal([]*agentv1.ShellCommandParsingResult_ExecutableCommandArg{
				{Type: "word", Value: "test"}, {Type: "word", Value: "./..."}}))
			Expect(p.GetExecutableCommands()[3].GetArgs()[0].GetType()).To(Equal("string"))
		})

		It("reports redirects, their file descriptors and whether they all go to /dev/null", func() {
			a := shellArgs(`make build 2>/dev/null >/dev/null`)
			p := a.GetParsingResult()
			Expect(p.GetHasRedirects()).To(BeTrue())
			Expect(p.GetAllRedirectsAreDevNull()).To(BeTrue())
			Expect(p.GetRedirects()[0].GetOperator()).To(Equal(">"))
			Expect(p.GetRedirects()[0].GetDestinationFds()).To(Equal([]uint32{2}))
			Expect(p.GetRedirects()[0].GetTargetText()).To(Equal("/dev/null"))
			Expect(a.GetHasOutputRedirect()).To(BeTrue())
			Expect(a.GetHasInputRedirect()).To(BeFalse())

			a = shellArgs(`sort < names.txt > sorted.txt`)
			Expect(a.GetHasInputRedirect()).To(BeTrue())
			Expect(a.GetParsingResult().GetAllRedirectsAreDevNull()).To(BeFalse())
		})

		It("finds a command hidden in a function body", func() {
			Expect(names(shellArgs(`f() { rm -rf build; }; f`).GetParsingResult())).To(Equal([]string{"rm", "f"}))
		})

		It("says the parse failed, naming no command, when the command is not valid shell", func() {
			a := shellArgs(`echo 'unterminated`)
			Expect(a.GetParsingResult().GetParsingFailed()).To(BeTrue())
			Expect(a.GetParsingResult().GetExecutableCommands()).To(BeEmpty())
			Expect(a.GetSimpleCommands()).To(BeEmpty())
		})
	})

	Describe("the completed card", func() {
		var (
			now time.Time
			c   *tools.Call
		)
		BeforeEach(func() {
			now = time.UnixMilli(1000)
			c = tools.New(llm.ToolCall{CallID: "call-1", Name: "Shell", Arguments: []byte(`{"command":"make"}`)},
				tools.Env{Now: func() time.Time { return now }})
			c.Start()
			now = now.Add(100 * time.Millisecond)
			c.OnExec(shellOut(&agentv1.ShellStream{Event: &agentv1.ShellStream_Start{Start: &agentv1.ShellStreamStart{}}}))
			c.OnExec(shellOut(&agentv1.ShellStream{Event: &agentv1.ShellStream_Stdout{Stdout: &agentv1.ShellStreamStdout{Data: "compiling\n"}}}))
			c.OnExec(shellOut(&agentv1.ShellStream{Event: &agentv1.ShellStream_Stderr{Stderr: &agentv1.ShellStreamStderr{Data: "warning: x\n"}}}))
			c.OnExec(shellOut(&agentv1.ShellStream{Event: &agentv1.ShellStream_Stdout{Stdout: &agentv1.ShellStreamStdout{Data: "done\n"}}}))
			now = now.Add(1500 * time.Millisecond)
		})

		It("shows a success with both streams interleaved as they came, the exit code and how long the command ran", func() {
			local := int32(1450)
			a := c.OnExec(shellOut(&agentv1.ShellStream{Event: &agentv1.ShellStream_Exit{Exit: &agentv1.ShellStreamExit{
				Code: 0, Cwd: "/ws", LocalExecutionTimeMs: &local}}}))
			Expect(a.Result).NotTo(BeNil())
			s := c.Card().GetShellToolCall().GetResult().GetSuccess()
			Expect(s.GetInterleavedOutput()).To(Equal("compiling\nwarning: x\ndone\n"))
			Expect(s.GetStdout()).To(Equal("compiling\ndone\n"))
			Expect(s.GetStderr()).To(Equal("warning: x\n"))
			Expect(s.GetExitCode()).To(BeZero())
			Expect(s.GetExecutionTime()).To(BeEquivalentTo(1500), "from the client's start event to the exit")
			Expect(s.GetLocalExecutionTimeMs()).To(BeEquivalentTo(1450))
			Expect(s.GetWorkingDirectory()).To(Equal("/ws"))
			Expect(s.GetCommand()).To(Equal("make"))
		})

		It("shows a failure with its exit code, the interleaved output and the abort", func() {
			reason := agentv1.ShellAbortReason_SHELL_ABORT_REASON_TIMEOUT
			c.OnExec(shellOut(&agentv1.ShellStream{Event: &agentv1.ShellStream_Exit{Exit: &agentv1.ShellStreamExit{
				Code: 2, Aborted: true, AbortReason: &reason}}}))
			f := c.Card().GetShellToolCall().GetResult().GetFailure()
			Expect(f.GetExitCode()).To(BeEquivalentTo(2))
			Expect(f.GetInterleavedOutput()).To(Equal("compiling\nwarning: x\ndone\n"))
			Expect(f.GetExecutionTime()).To(BeEquivalentTo(1500))
			Expect(f.GetAborted()).To(BeTrue())
			Expect(f.GetAbortReason()).To(Equal(reason))
		})
	})
})
