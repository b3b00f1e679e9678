package tab

import "strings"

// FillBudget bounds a fill-in prompt in bytes on each side of the cursor.
type FillBudget struct {
	Prefix, Suffix int
}

// DefaultFillBudget is 16 KiB before the cursor and 4 KiB after it:
// enough for the enclosing function and more, small enough to answer fast.
var DefaultFillBudget = FillBudget{Prefix: 16 << 10, Suffix: 4 << 10}

// FillPrompt is a fill-in-the-middle prompt and what its decoder needs of
// the file: the model inserts text at the cursor, which becomes one edit
// of the cursor line.
type FillPrompt struct {
	// Prefix and Suffix are the text before and after the cursor, cut at
	// line boundaries far from the cursor. Prefix may open with a comment
	// line naming the file's path.
	Prefix, Suffix string
	// Line is the cursor line, 1-indexed.
	Line int
	// Before and After are the cursor line's text on each side of the
	// cursor.
	Before, After string
	// Following is the text after the cursor line (bounded by the suffix
	// budget): a model that repeats it repeats the suffix.
	Following string
}

// NewFillPrompt builds the fill-in prompt of in within b. It costs
// O(budget) beyond finding the cursor line, which scans the file up to it
// at memchr speed: nothing is split and the file is not copied. ok is
// false when the cursor is not in the file.
func NewFillPrompt(in Input, b FillBudget) (FillPrompt, bool) {
	sp, ok := locate(in)
	if !ok {
		return FillPrompt{}, false
	}
	c := in.Contents
	p := FillPrompt{Line: sp.line + 1, Before: sp.before(c), After: sp.after(c)}
	start := 0
	if sp.offset > b.Prefix {
		// Cut at the first line start within the budget; a cursor line
		// longer than the budget is cut inside.
		start = lineStartAfter(c, sp.offset-b.Prefix)
		if start > sp.offset {
			start = runeStart(c, sp.offset-b.Prefix)
		}
	}
	end := len(c)
	if len(c)-sp.offset > b.Suffix {
		end = lineEndBefore(c, sp.offset+b.Suffix)
		if end < sp.offset {
			end = runeStart(c, sp.offset+b.Suffix)
		}
	}
	p.Prefix, p.Suffix = c[start:sp.offset], c[sp.offset:end]
	if i := strings.IndexByte(p.Suffix, '\n'); i >= 0 {
		p.Following = p.Suffix[i+1:]
	}
	if h := pathComment(in.LanguageID, in.Path); h != "" {
		p.Prefix = h + p.Prefix
	}
	return p, true
}

// pathComment is a first line naming the file in its language's line
// comment, which fill-in models are trained to read; "" for a language
// without a known line comment.
func pathComment(lang, path string) string {
	if path == "" || strings.ContainsAny(path, "\r\n") {
		return ""
	}
	var open string
	switch lang {
	case "go", "c", "cpp", "csharp", "java", "javascript", "javascriptreact", "typescript",
		"typescriptreact", "rust", "swift", "kotlin", "scala", "dart", "php", "proto", "zig":
		open = "// "
	case "python", "shellscript", "ruby", "perl", "r", "yaml", "toml", "dockerfile", "makefile",
		"elixir", "powershell":
		open = "# "
	case "sql", "lua", "haskell":
		open = "-- "
	default:
		return ""
	}
	return open + "Path: " + path + "\n"
}
