package archspec_test

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Citations: every document a comment, a spec name or a repository doc
// refers to must be in the repository. A design note kept elsewhere is a
// dead link for whoever picks the project up; the facts belong in the
// comment itself or in docs/.

// citationProblem is one citation that does not resolve.
type citationProblem struct {
	File string
	Line int
	Text string
	Why  string
}

func (p citationProblem) String() string {
	return fmt.Sprintf("%s:%d: %s: %q", p.File, p.Line, p.Why, p.Text)
}

// outsideDocs are the names and phrases by which Keygate's code used to
// cite design notes kept outside the repository.
var outsideDocs = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`\.\./shared\b|\bshared/(docs|reference)\b`), "names a folder outside the repository"},
	{regexp.MustCompile(`(?i)\bengine[- ]reference\b`), "cites the engine reference, which is not in the repository (use docs/engine.md)"},
	{regexp.MustCompile(`(?i)\bprotocol notes\b`), "cites protocol notes that are not in the repository (use docs/cursor-protocol.md)"},
	{regexp.MustCompile(`(?i)\bstyle[- ]anchors\b|\btoolchain\.md\b|\bpeers\.md\b`), "cites a note that is not in the repository"},
	{regexp.MustCompile(`(?i)\bpitfalls? P\d+\b`), "cites a pitfall by number (use its heading in docs/cursor-protocol.md)"},
	{regexp.MustCompile(`\(P\d+[),;]`), "cites a pitfall by number (use its heading in docs/cursor-protocol.md)"},
}

// docName matches a markdown file name with the path written before it.
var docName = regexp.MustCompile(`([\w./-]*?)((?:architecture|cursor-protocol|engine-reference|engine)\.md)\b`)

// docCitation matches docs/<file>.md with an optional #anchor and an
// optional quoted heading after a comma: docs/engine.md, "Retries".
var docCitation = regexp.MustCompile(`docs/([\w-]+\.md)(#[\w-]+)?(?:,\s*"([^"]+)")?`)

// sectionSign matches the path cited right before a § and the section.
var sectionSign = regexp.MustCompile(`([\w./-]*\.md)?\s*§\s*([\d.]*\d)?`)

// mdLink matches a relative markdown link target inside docs/.
var mdLink = regexp.MustCompile(`\]\(([\w./-]*?\.md)?(#[\w-]+)?\)`)

// checkedExt are the text files citations may hide in.
var checkedExt = []string{".go", ".md", ".proto", ".sql", ".yml", ".yaml", ".ts", ".tsx", ".mjs", ".js", ".sh"}

// repoRoot is the module root, from this file's location.
func repoRoot() string {
	_, here, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(here), "..", "..")
}

// citedFiles lists the repository's own text files, relative to root:
// everything but VCS data, dependencies, build output, generated code,
// the verbatim third-party schemas, and this spec (whose examples are
// bad citations on purpose).
func citedFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel != "." && strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci",
				d.Name() == "node_modules", rel == "gen", rel == "console/dist", rel == "console/src/gen":
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasPrefix(rel, "proto/source/") && strings.HasSuffix(rel, ".proto"),
			rel == "app/archspec/citations_test.go":
			return nil
		case slices.Contains(checkedExt, filepath.Ext(rel)), d.Name() == "Dockerfile", rel == ".ci/run":
			out = append(out, rel)
		}
		return nil
	})
	return out, err
}

// headings returns the headings of a markdown file by text and by anchor
// (GitHub's rule: lower case, punctuation other than - and _ dropped,
// spaces to hyphens).
func headings(path string) (byText, byAnchor map[string]bool, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	byText, byAnchor = map[string]bool{}, map[string]bool{}
	inFence := false
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "```") {
			inFence = !inFence
		}
		if inFence || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		byText[h] = true
		byAnchor[anchor(h)] = true
	}
	return byText, byAnchor, nil
}

func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9'):
			b.WriteRune(r)
		case r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// joined is a file's text with comment markers removed and lines joined,
// so that a citation wrapped over two comment lines reads as one; offsets
// maps a position in it back to its line.
func joined(lines []string) (string, []int) {
	var b strings.Builder
	var lineAt []int
	for i, l := range lines {
		l = strings.TrimSpace(l)
		l = strings.TrimPrefix(l, "//")
		l = strings.TrimPrefix(l, "--")
		l = strings.TrimPrefix(l, "#")
		l = strings.ReplaceAll(strings.TrimSpace(l), `\"`, `"`)
		l = strings.ReplaceAll(l, "`", "")
		start := b.Len()
		b.WriteString(l)
		b.WriteByte(' ')
		for range b.Len() - start {
			lineAt = append(lineAt, i+1)
		}
	}
	return b.String(), lineAt
}

// checkCitations checks every file's citations; exists and heads resolve
// repository files and markdown headings (relative to root).
func checkCitations(root, rel string, text string) []citationProblem {
	c := &citationCheck{root: root, rel: rel, inDocs: strings.HasPrefix(rel, "docs/")}
	lines := strings.Split(text, "\n")
	flat, lineAt := joined(lines)
	for _, o := range outsideDocs {
		for _, m := range o.re.FindAllStringIndex(flat, -1) {
			line := lineAt[m[0]]
			c.add(line, lines[line-1], o.why)
		}
	}
	for i, l := range lines {
		c.docNames(i+1, l)
		c.sections(i+1, l)
		if c.inDocs {
			c.links(i+1, l)
		}
	}
	c.docCitations(flat, lineAt)
	return c.out
}

// citationCheck collects the citation problems of one file.
type citationCheck struct {
	root, rel string
	inDocs    bool
	out       []citationProblem
}

func (c *citationCheck) add(line int, t, why string) {
	c.out = append(c.out, citationProblem{File: c.rel, Line: line, Text: strings.TrimSpace(t), Why: why})
}

func (c *citationCheck) exists(p string) bool {
	_, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(p)))
	return err == nil
}

// docNames: a docs/ file is cited with its folder.
func (c *citationCheck) docNames(line int, l string) {
	for _, m := range docName.FindAllStringSubmatch(l, -1) {
		dir, name := m[1], m[2]
		switch {
		case name == "engine-reference.md":
			// reported with outsideDocs
		case strings.HasSuffix(dir, "docs/"), c.inDocs && (dir == "" || dir == "./"):
		default:
			c.add(line, l, "names "+name+" without its folder (cite docs/"+name+")")
		}
	}
}

// sections: a § cites a document in the repository and one of its
// headings.
func (c *citationCheck) sections(line int, l string) {
	for _, m := range sectionSign.FindAllStringSubmatch(l, -1) {
		cited, section := m[1], m[2]
		path := c.resolveUp(cited)
		if path == "" {
			c.add(line, l, "cites a § of a document that is not in the repository (cite a docs/ file and heading)")
			continue
		}
		texts, _, err := headings(filepath.Join(c.root, path))
		if err == nil && section != "" && !slices.ContainsFunc(slices.Collect(maps.Keys(texts)), func(h string) bool {
			return strings.HasPrefix(h, section+".") || strings.HasPrefix(h, section+" ")
		}) {
			c.add(line, l, fmt.Sprintf("cites § %s, which %s has no heading for", section, path))
		}
	}
}

// resolveUp finds cited relative to the file's folder or one above it; ""
// when there is none.
func (c *citationCheck) resolveUp(cited string) string {
	for base := filepath.Dir(c.rel); cited != ""; base = filepath.Dir(base) {
		if p := filepath.ToSlash(filepath.Join(base, cited)); c.exists(p) {
			return p
		}
		if base == "." {
			break
		}
	}
	return ""
}

// links: a markdown link in docs/ names a file that exists and a heading
// it has.
func (c *citationCheck) links(line int, l string) {
	for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
		target, frag := m[1], strings.TrimPrefix(m[2], "#")
		if target == "" {
			target = filepath.Base(c.rel)
		}
		p := filepath.ToSlash(filepath.Join(filepath.Dir(c.rel), target))
		if !c.exists(p) {
			c.add(line, l, "links to "+p+", which does not exist")
			continue
		}
		if _, anchors, err := headings(filepath.Join(c.root, p)); err == nil && frag != "" && !anchors[frag] {
			c.add(line, l, "links to #"+frag+", which "+p+" has no heading for")
		}
	}
}

// docCitations: a docs/ citation, possibly across lines, names a file that
// exists and, when it gives one, an anchor or heading of it.
func (c *citationCheck) docCitations(flat string, lineAt []int) {
	for _, m := range docCitation.FindAllStringSubmatchIndex(flat, -1) {
		line := lineAt[m[0]]
		p := "docs/" + flat[m[2]:m[3]]
		cite := flat[m[0]:m[1]]
		if !c.exists(p) {
			c.add(line, cite, p+" does not exist")
			continue
		}
		texts, anchors, err := headings(filepath.Join(c.root, p))
		if err != nil {
			c.add(line, cite, err.Error())
			continue
		}
		if m[4] >= 0 && !anchors[flat[m[4]+1:m[5]]] {
			c.add(line, cite, p+" has no heading for this anchor")
		}
		if m[6] >= 0 {
			if h := strings.Join(strings.Fields(flat[m[6]:m[7]]), " "); !texts[h] {
				c.add(line, cite, fmt.Sprintf("%s has no heading %q", p, h))
			}
		}
	}
}

var _ = Describe("Citations in comments, spec names and docs", func() {
	It("name only documents in the repository, and every cited docs/ heading exists", func() {
		root := repoRoot()
		files, err := citedFiles(root)
		Expect(err).NotTo(HaveOccurred())
		Expect(files).To(ContainElements("app/run/doc.go", "docs/engine.md", "README.md", "Taskfile.yml"), "the walk saw the repository")
		var problems []string
		for _, rel := range files {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
			Expect(err).NotTo(HaveOccurred())
			for _, p := range checkCitations(root, rel, string(b)) {
				problems = append(problems, p.String())
			}
		}
		Expect(problems).To(BeEmpty(), "cite a document in docs/ by file and heading, or state the fact in the comment")
	})

	DescribeTable("the check",
		func(rel, text string, flagged bool) {
			ps := checkCitations(repoRoot(), rel, text)
			if flagged {
				Expect(ps).NotTo(BeEmpty(), "expected %q in %s to be refused", text, rel)
			} else {
				Expect(ps).To(BeEmpty())
			}
		},
		Entry("refuses a folder next to the checkout", "x/a.go", "// see ../shared/docs/notes.md", true),
		Entry("refuses the engine reference", "x/a.go", "// engine-reference §1.2", true),
		Entry("refuses a numbered pitfall", "x/a.go", "// the client may do this (pitfall P5)", true),
		Entry("refuses a bare pitfall number", "x/a_test.go", `It("finishes (P10)", func() {})`, true),
		Entry("refuses protocol notes", "x/a.go", "// messages of the protocol notes", true),
		Entry("refuses a § without a document", "x/a.go", "// the retry policy (§1.4)", true),
		Entry("refuses a § of a document outside the repository", "x/a.go", "// cursor-protocol.md §2.1", true),
		Entry("refuses a design note without its docs/ folder", "x/a.go", "// see engine.md", true),
		Entry("refuses a docs/ file that does not exist", "x/a.go", "// see docs/nowhere.md", true),
		Entry("refuses a heading docs/engine.md lacks", "x/a.go", "// (docs/engine.md, \"The reference sequence\")", true),
		Entry("refuses a heading wrapped over two comment lines that does not exist",
			"x/a.go", "// (docs/cursor-protocol.md, \"stream_close is\n// a result\")", true),
		Entry("accepts a docs/ file and heading", "x/a.go", "// (docs/engine.md, \"Retries\")", false),
		Entry("accepts a heading wrapped over two comment lines",
			"x/a.go", "// (docs/engine.md, \"One run per\n// conversation and preemption\")", false),
		Entry("accepts a heading in an escaped Go string", "x/a.go", `fmt.Sprint("(see docs/cursor-protocol.md, \"Routes Keygate serves\")")`, false),
		Entry("accepts a § of a repository document that has the section",
			"adapters/provider/anthropic/a_test.go", `Describe("Decoder (testdata/SOURCES.md §1)")`, false),
		Entry("refuses a § of a repository document that lacks the section",
			"adapters/provider/anthropic/a_test.go", `Describe("Decoder (testdata/SOURCES.md §9)")`, true),
		Entry("accepts a relative link between docs", "docs/architecture.md", "see [the engine](engine.md#retries)", false),
		Entry("refuses a link to a heading a doc lacks", "docs/architecture.md", "see [the engine](engine.md#reference)", true),
	)
})
