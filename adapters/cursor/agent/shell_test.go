package agent_test

import (
	"os"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
)

var _ = Describe("Handler serving a Shell call, as the client's terminal and tool card show it", func() {
	f := useFixture()

	When("the command writes to both streams and fails", func() {
		var st *cursortest.Stream
		BeforeEach(func() {
			f.h.reply(
				providertest.Turn{ID: "r1", Calls: []providertest.Call{call("c_sh", "Shell", `{"command":"echo one; echo two >&2; exit 3"}`)}},
				providertest.Turn{ID: "r2", Text: []string{"It failed."}},
			)
			st = finished(open(f.c, cursortest.RunRequest("conv-shell", "kg-model", "Run it")))
			Expect(st.EndError()).To(BeNil())
		})

		It("mirrors every shell stream event as shell_output_delta, so the live terminal is not empty until the end", func() {
			term := cursortest.Terminal(st.Content())
			Expect(term).To(HaveLen(4))
			Expect(term[0]).To(Equal("start"))
			Expect(term[1:3]).To(ConsistOf("stdout:one\n", "stderr:two\n"))
			Expect(term[3]).To(Equal("exit:3"))
		})

		It("sends each output event on both channels, the terminal's before the tool card's, and the exit before the card completes", func() {
			ks := cursortest.Kinds(st.Content())
			Expect(slices.Index(ks, "shell_output:start")).To(BeNumerically(">", slices.Index(ks, "exec:shell_stream_args")))
			for _, ch := range []string{"stdout", "stderr"} {
				mirror := slices.Index(ks, "shell_output:"+ch)
				Expect(mirror).To(BeNumerically(">=", 0))
				Expect(ks[mirror+1]).To(Equal("tool_call_delta"), ch)
			}
			Expect(slices.Index(ks, "shell_output:exit")).To(BeNumerically("<", slices.Index(ks, "tool_call_completed")))
		})

		It("fills the completed card with the interleaved output, the exit code and the execution times", func() {
			res := completed(st, "c_sh").GetShellToolCall().GetResult().GetFailure()
			Expect(res).NotTo(BeNil())
			Expect(res.GetExitCode()).To(BeEquivalentTo(3))
			Expect(res.GetInterleavedOutput()).To(And(ContainSubstring("one\n"), ContainSubstring("two\n")))
			Expect(res.GetStdout()).To(Equal("one\n"))
			Expect(res.GetStderr()).To(Equal("two\n"))
			Expect(res.LocalExecutionTimeMs).NotTo(BeNil(), "the client's own measure is kept")
			Expect(res.GetExecutionTime()).To(BeNumerically(">=", 0))
			Expect(res.GetCommand()).To(Equal("echo one; echo two >&2; exit 3"))
		})
	})

	It("sends the command's parse with the exec, so the client runs an allowlisted command without asking and asks about one chained after it", func() {
		f.ws.AutoRun = []string{"echo", "ls"}
		f.h.reply(
			providertest.Turn{ID: "r1", Calls: []providertest.Call{
				call("c_ok", "Shell", `{"command":"echo hi && ls"}`),
				call("c_chained", "Shell", `{"command":"echo hi; rm -f a.txt"}`),
			}},
			providertest.Turn{ID: "r2", Text: []string{"Done."}},
		)
		st := finished(open(f.c, cursortest.RunRequest("conv-shell-parse", "kg-model", "Run both")))
		Expect(st.EndError()).To(BeNil())
		Expect(f.ws.Asked()).To(Equal([]string{"echo hi; rm -f a.txt"}))
		Expect(filepath.Join(f.ws.Root, "a.txt")).To(BeAnExistingFile(), "the declined command never ran")
		for _, ex := range f.ws.Execs() {
			if ex.GetExecId() == "c_chained" {
				Expect(ex.GetShellStreamArgs().GetSimpleCommands()).To(Equal([]string{"echo hi", "rm -f a.txt"}))
			}
		}
		Expect(completed(st, "c_chained").GetShellToolCall().GetResult().GetRejected()).NotTo(BeNil())
		Expect(string(f.h.provider.Requests()[1].Body)).To(ContainSubstring("the user rejected the command"))
		_, err := os.Stat(filepath.Join(f.ws.Root, "a.txt"))
		Expect(err).NotTo(HaveOccurred())
	})
})
