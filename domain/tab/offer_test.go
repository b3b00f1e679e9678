package tab_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/tab"
)

var _ = Describe("typing through a suggestion", func() {
	file := "func f() {\n\tx := |\n}\n"
	in := input("a.go", "go", file)
	edit := tab.Edit{Range: tab.Range{StartLine: 2, EndLine: 2}, Text: "\tx := compute(1)"}

	It("gives the rest of the suggestion when the user types its next characters", func() {
		o, ok := tab.NewOffer(in, []tab.Edit{edit})
		Expect(ok).To(BeTrue())
		Expect(o.Inserted).To(Equal("compute(1)"))
		next := input("a.go", "go", "func f() {\n\tx := comp|\n}\n")
		e, rest, ok := o.Continue(next)
		Expect(ok).To(BeTrue())
		Expect(e).To(Equal(edit), "the same line, as the rest completes it")
		Expect(applied(next.Contents, tab.EditEvents(e))).To(Equal("func f() {\n\tx := compute(1)\n}\n"))
		_, _, ok = rest.Continue(input("a.go", "go", "func f() {\n\tx := compute(|\n}\n"))
		Expect(ok).To(BeTrue(), "the rest is an offer too")
	})

	It("works for a multi-line insertion", func() {
		o, ok := tab.NewOffer(in, []tab.Edit{{Range: tab.Range{StartLine: 2, EndLine: 2}, Text: "\tx := 1\n\ty := 2"}})
		Expect(ok).To(BeTrue())
		next := input("a.go", "go", "func f() {\n\tx := 1\n|\n}\n")
		e, _, ok := o.Continue(next)
		Expect(ok).To(BeTrue())
		Expect(applied(next.Contents, tab.EditEvents(e))).To(Equal("func f() {\n\tx := 1\n\ty := 2\n}\n"))
	})

	DescribeTable("asks the model again otherwise",
		func(next tab.Input) {
			o, ok := tab.NewOffer(in, []tab.Edit{edit})
			Expect(ok).To(BeTrue())
			_, _, ok = o.Continue(next)
			Expect(ok).To(BeFalse())
		},
		Entry("typed characters the suggestion does not insert", input("a.go", "go", "func f() {\n\tx := cz|\n}\n")),
		Entry("nothing typed", input("a.go", "go", file)),
		Entry("the whole suggestion typed", input("a.go", "go", "func f() {\n\tx := compute(1)|\n}\n")),
		Entry("the text after the cursor changed", input("a.go", "go", "func f() {\n\tx := comp|\n}\n// new\n")),
		Entry("the text before the typing changed", input("a.go", "go", "func g() {\n\tx := comp|\n}\n")),
		Entry("another file", input("b.go", "go", "func f() {\n\tx := comp|\n}\n")),
	)

	It("keeps no offer for edits that are not an insertion at the cursor", func() {
		_, ok := tab.NewOffer(in, []tab.Edit{{Range: tab.Range{StartLine: 1, EndLine: 1}, Text: "func g() {"}})
		Expect(ok).To(BeFalse())
		_, ok = tab.NewOffer(in, []tab.Edit{{Range: tab.Range{StartLine: 2, EndLine: 2}, Text: "\ty := 1"}})
		Expect(ok).To(BeFalse())
	})
})
