package tab_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/tab"
)

var _ = Describe("the edit prompt", func() {
	It("marks the cursor inside the region and shows recent edits newest last, within budget", func() {
		var b strings.Builder
		for i := range 60 {
			b.WriteString("line")
			b.WriteString(strings.Repeat("x", i%7))
			b.WriteString("\n")
		}
		text := b.String()
		at := strings.Index(text, "linexxxxx\n") // line 6 (1-indexed)
		in := input("a.go", "go", text[:at+4]+"|"+text[at+4:])
		in.Recent = []tab.FileDiff{{Path: "old.go", Diff: strings.Repeat("-", 4000)}, {Path: "a.go", Diff: "-a\n+b\n"},
			{Path: "b.go", Diff: "-c\n+d\n"}}
		in.Lints = []tab.Lint{{Line: 7, Severity: "error", Message: "undefined: y"}, {Line: 59, Severity: "error", Message: "far"}}
		p, ok := tab.NewEditPrompt(in, tab.DefaultEditBudget)
		Expect(ok).To(BeTrue())
		Expect(p.Start).To(Equal(1), "8 lines above line 6 reach the file's start")
		Expect(p.Region).To(HaveLen(6 + 16))
		Expect(p.Region[5]).To(Equal("linexxxxx"), "the region holds the line without the marker")
		Expect(p.User).To(ContainSubstring(tab.RegionStart + "\nline\n"))
		Expect(p.User).To(ContainSubstring("line" + tab.CursorMarker + "xxxxx\n"))
		Expect(p.User).To(ContainSubstring("--- a.go\n-a\n+b\n--- b.go\n-c\n+d\n"))
		Expect(p.User).NotTo(ContainSubstring("old.go"), "an edit past the budget is left out")
		Expect(p.User).To(ContainSubstring("line 7: error: undefined: y"))
		Expect(p.User).NotTo(ContainSubstring("far"), "a diagnostic far from the region is left out")
		Expect(p.System).To(ContainSubstring(tab.RegionEnd))
	})
})

// region is the test file of the edit decoder: the cursor on line 3.
const region = "package p\n\nfunc f() {\n\ta := 1|\n\tb := 2\n\tc := 3\n\td := 4\n}\n\nfunc g() {}\n"

var _ = Describe("the edit decoder", func() {
	var (
		in tab.Input
		p  tab.EditPrompt
	)
	BeforeEach(func() {
		var ok bool
		in = input("p.go", "go", region)
		p, ok = tab.NewEditPrompt(in, tab.EditBudget{Above: 2, Below: 3, RegionBytes: 1 << 10, ContextLines: 3,
			ContextBytes: 1 << 10})
		Expect(ok).To(BeTrue())
		Expect(p.Region).To(Equal([]string{"", "func f() {", "\ta := 1", "\tb := 2", "\tc := 3", "\td := 4"}))
	})
	decode := func(truncated bool, o tab.DecodeOptions, deltas ...string) ([][]tab.Event, []tab.Event) {
		return feed(tab.NewEditDecoder(p, diff, o), truncated, deltas...)
	}
	reply := func(lines ...string) string {
		return tab.RegionStart + "\n" + strings.Join(lines, "\n") + "\n" + tab.RegionEnd + "\n"
	}

	It("turns a rewritten line into an edit of that line", func() {
		_, all := decode(false, tab.DecodeOptions{}, reply("", "func f() {", "\ta := 10", "\tb := 2", "\tc := 3", "\td := 4"))
		Expect(all).To(Equal(tab.EditEvents(tab.Edit{Range: tab.Range{StartLine: 4, EndLine: 4}, Text: "\ta := 10"})))
	})

	It("sends each hunk as soon as two unchanged lines close it, with line numbers after the earlier edits", func() {
		each, all := decode(false, tab.DecodeOptions{},
			tab.RegionStart+"\n\nfunc f() {\n\ta := 1\n\tx := 0\n\tb := 2\n", "\tc := 3\n", "\td := 40\n", tab.RegionEnd+"\n")
		Expect(each[1]).To(Equal(tab.EditEvents(tab.Edit{Range: tab.Range{StartLine: 4, EndLine: 4}, Text: "\ta := 1\n\tx := 0"})),
			"the insertion is sent once b and c matched")
		Expect(each[2]).To(BeEmpty(), "the changed last line is not closed yet")
		Expect(applied(in.Contents, all)).To(Equal(
			"package p\n\nfunc f() {\n\ta := 1\n\tx := 0\n\tb := 2\n\tc := 3\n\td := 40\n}\n\nfunc g() {}\n"))
	})

	It("expresses deletions and insertions at the region's start", func() {
		_, all := decode(false, tab.DecodeOptions{}, reply("// f does it.", "", "func f() {", "\ta := 1", "\td := 4"))
		Expect(applied(in.Contents, all)).To(Equal(
			"package p\n// f does it.\n\nfunc f() {\n\ta := 1\n\td := 4\n}\n\nfunc g() {}\n"))
	})

	It("never deletes the region's tail for a reply cut at the output limit", func() {
		_, all := decode(true, tab.DecodeOptions{}, tab.RegionStart+"\n\nfunc f() {\n\ta := 11\n\tb := 2\n\tc := 3\n\td := ")
		Expect(applied(in.Contents, all)).To(Equal(strings.Replace(in.Contents, "a := 1\n", "a := 11\n", 1)))
		_, all = decode(true, tab.DecodeOptions{}, tab.RegionStart+"\n\nfunc f() {\n\ta := 11\n")
		Expect(all).To(BeEmpty(), "an open hunk is not sent")
	})

	It("strips code fences and the cursor marker, and reads a reply without markers", func() {
		_, all := decode(false, tab.DecodeOptions{}, tab.RegionStart+"\n```go\n\nfunc f() {\n\ta := 1"+tab.CursorMarker+
			"5\n\tb := 2\n\tc := 3\n\td := 4\n```\n"+tab.RegionEnd)
		Expect(all).To(Equal(tab.EditEvents(tab.Edit{Range: tab.Range{StartLine: 4, EndLine: 4}, Text: "\ta := 15"})))
		_, all = decode(false, tab.DecodeOptions{}, "```go\n\nfunc f() {\n\ta := 15\n\tb := 2\n\tc := 3\n\td := 4\n```\n")
		Expect(all).To(Equal(tab.EditEvents(tab.Edit{Range: tab.Range{StartLine: 4, EndLine: 4}, Text: "\ta := 15"})))
	})

	It("drops a reply that changes nothing, only whitespace, or is empty", func() {
		_, all := decode(false, tab.DecodeOptions{}, reply(p.Region...))
		Expect(all).To(BeEmpty())
		_, all = decode(false, tab.DecodeOptions{}, reply("", "func f() {", "\ta  :=  1", "\tb := 2", "\tc := 3", "\td := 4"))
		Expect(all).To(BeEmpty())
		_, all = decode(false, tab.DecodeOptions{}, tab.RegionStart+"\n"+tab.RegionEnd)
		Expect(all).To(BeEmpty())
	})

	It("trims the model writing the lines after the region again", func() {
		_, all := decode(false, tab.DecodeOptions{}, reply("", "func f() {", "\ta := 1", "\tb := 2", "\tc := 3", "\td := 4",
			"\te := 5", "}", ""))
		Expect(applied(in.Contents, all)).To(Equal(strings.Replace(in.Contents, "d := 4\n", "d := 4\n\te := 5\n", 1)))
	})

	It("keeps the region's trailing blank lines a reply drops, and stops the region at the file's end", func() {
		eof := input("e.go", "go", "func f() {\n\ta := 1|\n}\n\n")
		ep, _ := tab.NewEditPrompt(eof, tab.DefaultEditBudget)
		Expect(ep.Region).To(Equal([]string{"func f() {", "\ta := 1", "}", ""}), "no line after the last line break")
		_, all := feed(tab.NewEditDecoder(ep, diff, tab.DecodeOptions{}), false, tab.RegionStart+"\nfunc f() {\n\ta := 1\n\tb := 2\n}\n"+
			tab.RegionEnd+"\n")
		Expect(applied(eof.Contents, all)).To(Equal("func f() {\n\ta := 1\n\tb := 2\n}\n\n"))
	})

	It("drops an edit equal to one the user just rejected", func() {
		rejected := tab.Edit{Range: tab.Range{StartLine: 4, EndLine: 4}, Text: "\ta := 10"}
		_, all := decode(false, tab.DecodeOptions{Rejected: []tab.Edit{rejected}},
			reply("", "func f() {", "\ta := 10", "\tb := 2", "\tc := 3", "\td := 4"))
		Expect(all).To(BeEmpty())
	})

	It("jumps to the line the model quotes as the next to edit", func() {
		d := tab.NewEditDecoder(p, diff, tab.DecodeOptions{})
		_, all := feed(d, false, reply("", "func f() {", "\ta := 1", "\tx := 0", "\tb := 2", "\tc := 3", "\td := 4")+
			tab.NextMarker+" func g() {}\n")
		Expect(d.Enough()).To(BeTrue())
		Expect(all[len(all)-1]).To(Equal(tab.Event{Kind: tab.EventJump,
			Jump: &tab.Jump{Path: "p.go", Line: 11, Expected: "func g() {}"}}), "line 10, one further for the inserted line")
	})
})
