package turn_test

import (
	"fmt"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/turn"
)

var _ = Describe("OpenFiles.Compile", func() {
	It("renders nothing without files", func() {
		Expect(turn.OpenFiles(nil).Compile()).To(BeEmpty())
	})

	It("renders every file in path order, the same bytes whatever the map's order", func() {
		f := turn.OpenFiles{"b.go": "package b\n", "a.go": "package a\n", "empty.txt": ""}
		out := f.Compile()
		Expect(out).To(HavePrefix("<open_file_contents>\n"))
		Expect(out).To(ContainSubstring("<file path=\"a.go\">\npackage a\n</file>\n<file path=\"b.go\">\npackage b\n</file>\n<file path=\"empty.txt\">\n\n</file>"))
		for range 20 {
			Expect(turn.OpenFiles{"empty.txt": "", "a.go": "package a\n", "b.go": "package b\n"}.Compile()).To(Equal(out))
		}
	})

	It("cuts a file over its cap at a line's end and says how much it left out", func() {
		line := strings.Repeat("y", 99) + "\n"
		content := strings.Repeat(line, turn.FileContentLimit/len(line)+10)
		out := turn.OpenFiles{"big.go": content}.Compile()
		shown := turn.FileContentLimit / len(line) * len(line)
		Expect(out).To(ContainSubstring(fmt.Sprintf("</file>\n… (%d more bytes of big.go not shown)", len(content)-shown)))
		Expect(strings.Count(out, strings.Repeat("y", 99))).To(Equal(shown / len(line)))
	})

	It("cuts a file whose first line is over the cap on a rune boundary", func() {
		content := strings.Repeat("é", turn.FileContentLimit)
		out := turn.OpenFiles{"min.js": content}.Compile()
		Expect(utf8.ValidString(out)).To(BeTrue())
		Expect(out).To(ContainSubstring(fmt.Sprintf("… (%d more bytes of min.js not shown)", len(content)-turn.FileContentLimit)))
	})

	It("bounds all files together, listing the files left out whole up to a limit and counting the rest", func() {
		f := turn.OpenFiles{}
		line := strings.Repeat("z", 511) + "\n"
		for i := range 40 {
			f[fmt.Sprintf("f%02d.go", i)] = strings.Repeat(line, 16) // 8 KiB each
		}
		out := f.Compile()
		Expect(len(out)).To(BeNumerically("<=", turn.FileContentsLimit+turn.FileNotesLimit*(turn.EditorLineLimit+64)))
		shown := strings.Count(out, "<file path=")
		Expect(shown).To(BeNumerically(">=", 7))
		leftOut := strings.Count(out, "more bytes of") - strings.Count(out, "</file>\n… (")
		Expect(leftOut).To(Equal(turn.FileNotesLimit))
		Expect(out).To(HaveSuffix(fmt.Sprintf("[%d more files not shown]\n</open_file_contents>", 40-shown-leftOut)))
	})

	It("shortens the path of a file it leaves out whole", func() {
		long := strings.Repeat("deep/", 100) + "x.go"
		big := strings.Repeat("a\n", turn.FileContentLimit)
		f := turn.OpenFiles{"a.go": big, "b.go": big, long: "content"}
		out := f.Compile()
		Expect(out).To(ContainSubstring("… (7 more bytes of " + long[:turn.EditorLineLimit] + "… not shown)"))
	})
})
