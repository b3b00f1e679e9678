package tab_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/tab"
)

var _ = Describe("the fill-in prompt", func() {
	It("is the text before and after the cursor, under a path comment in the language's style", func() {
		in := input("main.go", "go", "package main\n\nfunc f() {\n\treturn |\n}\n")
		p, ok := tab.NewFillPrompt(in, tab.DefaultFillBudget)
		Expect(ok).To(BeTrue())
		Expect(p.Prefix).To(Equal("// Path: main.go\npackage main\n\nfunc f() {\n\treturn "))
		Expect(p.Suffix).To(Equal("\n}\n"))
		Expect(p.Line).To(Equal(4))
		Expect(p.Before).To(Equal("\treturn "))
		Expect(p.After).To(Equal(""))
	})

	It("names no path for a language without a known line comment", func() {
		p, _ := tab.NewFillPrompt(input("notes.txt", "plaintext", "ab|c"), tab.DefaultFillBudget)
		Expect(p.Prefix).To(Equal("ab"))
	})

	It("cuts both sides at line boundaries within the budget", func() {
		var b strings.Builder
		for range 100 {
			b.WriteString("0123456789\n") // 11 bytes a line
		}
		text := b.String()
		text = text[:550] + "|" + text[550:] // the cursor at the start of line 51
		p, ok := tab.NewFillPrompt(input("x.txt", "", text), tab.FillBudget{Prefix: 100, Suffix: 50})
		Expect(ok).To(BeTrue())
		Expect(len(p.Prefix)).To(BeNumerically("<=", 100))
		Expect(p.Prefix).To(HavePrefix("0123456789\n"), "it starts at a line start")
		Expect(len(p.Suffix)).To(BeNumerically("<=", 50))
		Expect(p.Suffix).To(HaveSuffix("0123456789"), "it ends at a line end")
	})

	It("reads the cursor column in UTF-16 code units", func() {
		in := tab.Input{Path: "a.txt", Contents: "😀é|x", Line: 0, Column: 3} // 😀 is two units
		p, ok := tab.NewFillPrompt(in, tab.DefaultFillBudget)
		Expect(ok).To(BeTrue())
		Expect(p.Prefix).To(Equal("😀é"))
	})

	It("refuses a cursor past the file's last line", func() {
		_, ok := tab.NewFillPrompt(tab.Input{Contents: "a\nb", Line: 2}, tab.DefaultFillBudget)
		Expect(ok).To(BeFalse())
	})
})

var _ = Describe("the fill-in decoder", func() {
	file := "func f() {\n\tx := |\n}\n"
	var p tab.FillPrompt
	BeforeEach(func() {
		var ok bool
		p, ok = tab.NewFillPrompt(input("a.go", "go", file), tab.DefaultFillBudget)
		Expect(ok).To(BeTrue())
	})
	contents := input("a.go", "go", file).Contents

	It("begins the cursor line's edit at the first usable token and streams the rest", func() {
		each, all := feed(tab.NewFillDecoder(p, tab.DecodeOptions{}), false, " ", "comp", "ute(", "1)")
		Expect(each[0]).To(BeEmpty(), "whitespace alone is not usable")
		Expect(each[1]).To(Equal([]tab.Event{
			{Kind: tab.EventBeginEdit, Range: tab.Range{StartLine: 2, EndLine: 2}},
			{Kind: tab.EventText, Text: "\tx :=  comp"},
		}))
		Expect(each[2]).To(Equal([]tab.Event{{Kind: tab.EventText, Text: "ute("}}))
		Expect(all[len(all)-1].Kind).To(Equal(tab.EventDoneEdit))
		Expect(applied(contents, all)).To(Equal("func f() {\n\tx :=  compute(1)\n}\n"))
	})

	It("keeps the text after the cursor after the completion", func() {
		in := input("a.go", "go", "f(|)\n")
		fp, _ := tab.NewFillPrompt(in, tab.DefaultFillBudget)
		_, all := feed(tab.NewFillDecoder(fp, tab.DecodeOptions{}), false, "a, b")
		Expect(applied(in.Contents, all)).To(Equal("f(a, b)\n"))
	})

	It("writes a multi-line completion as one edit", func() {
		_, all := feed(tab.NewFillDecoder(p, tab.DecodeOptions{}), false, "1\n\ty := 2\n\tz := 3")
		Expect(applied(contents, all)).To(Equal("func f() {\n\tx := 1\n\ty := 2\n\tz := 3\n}\n"))
	})

	It("trims the model writing the lines after the cursor again", func() {
		d := tab.NewFillDecoder(p, tab.DecodeOptions{})
		each, all := feed(d, false, "1\n", "}", "\n")
		Expect(each[1]).To(BeEmpty(), "a possible repetition is held back")
		Expect(applied(contents, all)).To(Equal(file[:strings.Index(file, "|")] + "1\n}\n"))
		Expect(d.Edits()).To(Equal([]tab.Edit{{Range: tab.Range{StartLine: 2, EndLine: 2}, Text: "\tx := 1"}}))
	})

	It("sends held-back text once it proves not to be a repetition", func() {
		_, all := feed(tab.NewFillDecoder(p, tab.DecodeOptions{}), false, "1\n", "}", " else {")
		Expect(applied(contents, all)).To(Equal("func f() {\n\tx := 1\n} else {\n}\n"))
	})

	It("drops a completion that is only whitespace", func() {
		_, all := feed(tab.NewFillDecoder(p, tab.DecodeOptions{}), false, "  ", "\n\t")
		Expect(all).To(BeEmpty())
	})

	It("drops a completion equal to an edit the user just rejected", func() {
		rejected := tab.Edit{Range: tab.Range{StartLine: 2, EndLine: 2}, Text: "\tx := 42"}
		_, all := feed(tab.NewFillDecoder(p, tab.DecodeOptions{Rejected: []tab.Edit{rejected}}), false, "4", "2")
		Expect(all).To(BeEmpty())
		_, all = feed(tab.NewFillDecoder(p, tab.DecodeOptions{Rejected: []tab.Edit{rejected}}), false, "4", "3")
		Expect(applied(contents, all)).To(ContainSubstring("x := 43"), "a different one is offered")
	})

	It("stops at MaxLines line breaks", func() {
		d := tab.NewFillDecoder(p, tab.DecodeOptions{MaxLines: 2})
		_, all := feed(d, false, "1\n\ta()\n\tb()\n\tc()")
		Expect(d.Enough()).To(BeTrue())
		Expect(applied(contents, all)).To(Equal("func f() {\n\tx := 1\n\ta()\n}\n"))
	})

	It("keeps only what was sent of a truncated completion", func() {
		_, all := feed(tab.NewFillDecoder(p, tab.DecodeOptions{}), true, "1\n", "}")
		Expect(applied(contents, all)).To(Equal("func f() {\n\tx := 1\n}\n"))
	})
})
