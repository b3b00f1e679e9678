package cmdk_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/cmdk"
)

// decode feeds the deltas and returns the text sent after each, the
// finish's last.
func decode(sel []string, deltas ...string) (each []string, all string) {
	d := cmdk.NewEditDecoder(sel)
	for _, s := range deltas {
		out := d.Feed(s)
		each = append(each, out)
		all += out
	}
	end := d.Finish()
	return append(each, end), all + end
}

var _ = Describe("the inline-edit prompt", func() {
	in := cmdk.Input{Path: "calc.go", Instruction: "return the sum", Start: 3,
		Selection: []string{"func add(a, b int) int {", "\treturn 0", "}"},
		Before:    []string{"package calc", ""}, After: []string{"", "func sub() {}"}, TotalLines: 7}

	It("shows the selection between tags, the lines around it, where it is and the instruction", func() {
		p, err := cmdk.NewPrompt(in, cmdk.Budget{})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.System).To(ContainSubstring("Reply with the lines that replace the selection"))
		Expect(p.User).To(ContainSubstring("File: calc.go (lines 3-5 of 7)"))
		Expect(p.User).To(ContainSubstring("<before>\npackage calc\n\n</before>\n<selection>\nfunc add(a, b int) int {\n\treturn 0\n}\n</selection>\n<after>\n\nfunc sub() {}\n</after>\n"))
		Expect(p.User).To(HaveSuffix("Instruction: return the sum\n"))
	})

	It("says an empty selection is an insertion point", func() {
		ins := in
		ins.Selection = nil
		p, err := cmdk.NewPrompt(ins, cmdk.Budget{})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.User).To(ContainSubstring("(an insertion before line 3 of 7)"))
		Expect(p.User).To(ContainSubstring("<selection>\n</selection>"))
	})

	It("asks a question in chat mode", func() {
		q := in
		q.Chat, q.Instruction = true, "why 0?"
		p, err := cmdk.NewPrompt(q, cmdk.Budget{})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.System).To(ContainSubstring("answer a programmer's question"))
		Expect(p.User).To(HaveSuffix("Question: why 0?\n"))
	})

	It("keeps the lines nearest the selection within the budget", func() {
		many := in
		many.Before = []string{"a1", "a2", "a3", "a4"}
		many.After = []string{"b1", "b2", "b3", "b4"}
		p, err := cmdk.NewPrompt(many, cmdk.Budget{AroundLines: 2})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.User).To(ContainSubstring("<before>\na3\na4\n</before>"))
		Expect(p.User).To(ContainSubstring("<after>\nb1\nb2\n</after>"))
		p, err = cmdk.NewPrompt(many, cmdk.Budget{AroundBytes: 6})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.User).To(ContainSubstring("<before>\na3\na4\n</before>"))
	})

	It("refuses a selection over the budget rather than cutting it, and a request without instruction", func() {
		_, err := cmdk.NewPrompt(in, cmdk.Budget{SelectionBytes: 10})
		Expect(err).To(MatchError(cmdk.ErrSelectionTooLarge))
		none := in
		none.Instruction = "  "
		_, err = cmdk.NewPrompt(none, cmdk.Budget{})
		Expect(err).To(MatchError(cmdk.ErrNoInstruction))
	})

	It("shows rules, context within its budget and the last earlier instructions", func() {
		rich := in
		rich.Rules = []string{"Use tabs.", ""}
		rich.Context = []cmdk.Snippet{{Title: "util.go", Text: "line1\nline2\nline3\n"}, {Title: "never", Text: "dropped"}}
		rich.Earlier = []string{"one", "two", "three"}
		p, err := cmdk.NewPrompt(rich, cmdk.Budget{ContextBytes: 12, Earlier: 2})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.User).To(HavePrefix("<rules>\nUse tabs.\n</rules>\n"))
		Expect(p.User).To(ContainSubstring("<context title=\"util.go\">\nline1\nline2\n… (6 more bytes not shown)\n</context>"))
		Expect(p.User).NotTo(ContainSubstring("dropped"))
		Expect(p.User).To(ContainSubstring("- two\n- three\n"))
		Expect(p.User).NotTo(ContainSubstring("- one"))
	})
})

var _ = Describe("the inline-edit decoder", func() {
	sel := []string{"x := 1"}

	It("sends each line once it is complete", func() {
		each, all := decode(sel, "a := ", "1\nb", " := 2\n", "c")
		Expect(each).To(Equal([]string{"", "a := 1\n", "b := 2\n", "", "c\n"}))
		Expect(all).To(Equal("a := 1\nb := 2\nc\n"))
	})

	It("unwraps a code fence and stops at the closing one", func() {
		d := cmdk.NewEditDecoder(sel)
		Expect(d.Feed("\n```go\n\ty := 2\n")).To(Equal("\ty := 2\n"))
		Expect(d.Feed("```\nSome explanation\n")).To(BeEmpty())
		Expect(d.Enough()).To(BeTrue())
		Expect(d.Finish()).To(BeEmpty())
	})

	It("unwraps selection tags the model echoes", func() {
		_, all := decode(sel, "<selection>\ny := 2\n</selection>\n")
		Expect(all).To(Equal("y := 2\n"))
	})

	It("keeps blank lines inside the answer and drops the model's trailing ones", func() {
		_, all := decode(sel, "a\n\n\nb\n\n\n")
		Expect(all).To(Equal("a\n\n\nb\n"))
	})

	It("keeps a trailing blank line when the selection ended in one", func() {
		_, all := decode([]string{"x", ""}, "y\n\n")
		Expect(all).To(Equal("y\n\n"))
	})

	It("keeps the indentation and leading blank lines of an unfenced answer", func() {
		_, all := decode(sel, "\n\tz\r\n")
		Expect(all).To(Equal("\n\tz\n"))
	})
})

var _ = Describe("the terminal prompt and command", func() {
	It("shows the terminal's last output, the directory, earlier exchanges and the instruction", func() {
		p, err := cmdk.NewTerminalPrompt(cmdk.TerminalInput{Instruction: "list go files", Cwd: "/src",
			History: strings.Repeat("x", 9000) + "\n$ ls\nmain.go\n", Earlier: []cmdk.Exchange{{Instruction: "show disk", Command: "df -h"}}})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.System).To(ContainSubstring("one command line"))
		Expect(p.User).To(ContainSubstring("Earlier instruction: show disk\nSuggested: df -h\n"))
		Expect(p.User).To(ContainSubstring("$ ls\nmain.go\n</terminal>\nWorking directory: /src\nInstruction: list go files\n"))
		Expect(len(p.User)).To(BeNumerically("<", 8<<10+300))
		_, err = cmdk.NewTerminalPrompt(cmdk.TerminalInput{})
		Expect(err).To(MatchError(cmdk.ErrNoInstruction))
	})

	DescribeTable("reads one command line from a reply",
		func(reply, want string) { Expect(cmdk.Command(reply)).To(Equal(want)) },
		Entry("plain", "ls -la\n", "ls -la"),
		Entry("fenced", "Here:\n```bash\n$ find . -name '*.go'\n```\nThis finds…", "find . -name '*.go'"),
		Entry("in backticks", "`git status`", "git status"),
		Entry("several lines chained", "cd src\n# build it\nmake", "cd src && make"),
		Entry("a continued line", "docker run \\\n  -it alpine", "docker run -it alpine"),
		Entry("nothing", "```\n```", ""),
	)
})
