package tab_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/tab"
)

var _ = Describe("Apply", func() {
	file := []string{"a", "b", "c", "d"}

	DescribeTable("replaces a range's lines with the text split on line breaks",
		func(r tab.Range, text string, want []string) {
			Expect(tab.Apply(file, r, text)).To(Equal(want))
			Expect(file).To(Equal([]string{"a", "b", "c", "d"}), "the input is not modified")
		},
		Entry("a line rewritten", tab.Range{StartLine: 2, EndLine: 2}, "B", []string{"a", "B", "c", "d"}),
		Entry("two lines become three", tab.Range{StartLine: 2, EndLine: 3}, "x\ny\nz", []string{"a", "x", "y", "z", "d"}),
		Entry("insertion after line 2: the line and the new ones", tab.Range{StartLine: 2, EndLine: 2}, "b\nnew",
			[]string{"a", "b", "new", "c", "d"}),
		Entry("insertion before line 1", tab.Range{StartLine: 1, EndLine: 1}, "new\na", []string{"new", "a", "b", "c", "d"}),
		Entry("deletion of lines 2..3 as [1,3] with line 1's text", tab.Range{StartLine: 1, EndLine: 3}, "a",
			[]string{"a", "d"}),
		Entry("deletion of line 1 as [1,2] with line 2's text", tab.Range{StartLine: 1, EndLine: 2}, "b",
			[]string{"b", "c", "d"}),
		Entry("every line deleted leaves the empty file", tab.Range{StartLine: 1, EndLine: 4}, "", []string{""}),
		Entry("a range past the end appends", tab.Range{StartLine: 5, EndLine: 5}, "e", []string{"a", "b", "c", "d", "e"}),
	)

	It("applies a prediction's edits in stream order, each to the file the earlier left", func() {
		evs := append(tab.EditEvents(tab.Edit{Range: tab.Range{StartLine: 1, EndLine: 1}, Text: "a\nnew"}),
			tab.EditEvents(tab.Edit{Range: tab.Range{StartLine: 4, EndLine: 4}, Text: "C"})...)
		Expect(tab.ApplyEvents(file, evs)).To(Equal([]string{"a", "new", "b", "C", "d"}))
	})
})
