package tab_test

import (
	"strings"
	"testing"

	"keygate/domain/tab"
)

// benchFile is a Go-like file of n lines with the cursor in its middle.
func benchFile(n int) tab.Input {
	var b strings.Builder
	for i := range n {
		b.WriteString("\tvalue := compute(previous, \"a string literal\", 42) // line ")
		b.WriteString(strings.Repeat("x", i%13))
		b.WriteString("\n")
	}
	return tab.Input{Path: "pkg/file.go", LanguageID: "go", Contents: b.String(), Line: n / 2, Column: 10}
}

// The fill-in prompt costs O(budget) but for finding the cursor line,
// which counts line breaks up to it (~30 GB/s): compare 200, 2,000 and
// 20,000 lines, with the path comment (one copy of the prefix) and
// without it (nothing copied).
func BenchmarkFillPrompt200(b *testing.B)            { benchFill(b, 200, "go") }
func BenchmarkFillPrompt2000(b *testing.B)           { benchFill(b, 2000, "go") }
func BenchmarkFillPrompt20000(b *testing.B)          { benchFill(b, 20000, "go") }
func BenchmarkFillPromptNoComment200(b *testing.B)   { benchFill(b, 200, "plaintext") }
func BenchmarkFillPromptNoComment2000(b *testing.B)  { benchFill(b, 2000, "plaintext") }
func BenchmarkFillPromptNoComment20000(b *testing.B) { benchFill(b, 20000, "plaintext") }

func benchFill(b *testing.B, n int, lang string) {
	in := benchFile(n)
	in.LanguageID = lang
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := tab.NewFillPrompt(in, tab.DefaultFillBudget); !ok {
			b.Fatal("no prompt")
		}
	}
}

func BenchmarkEditPrompt200(b *testing.B)  { benchEdit(b, 200) }
func BenchmarkEditPrompt2000(b *testing.B) { benchEdit(b, 2000) }

func benchEdit(b *testing.B, n int) {
	in := benchFile(n)
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := tab.NewEditPrompt(in, tab.DefaultEditBudget); !ok {
			b.Fatal("no prompt")
		}
	}
}
