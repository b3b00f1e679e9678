package webfetch

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The conversion budget. html-to-markdown renders each list, quote,
// link, emphasis, heading and code element into a buffer of its own and
// then rewrites that buffer (indents every line, trims, unescapes), so
// content nested d such elements deep is copied d times, and every line
// d lists deep carries d indents: lists 250 deep over a few thousand
// lines cost depth² × lines, gigabytes for a 12 KB page. Before
// converting, the tree is walked once and each node charged an upper
// bound of the bytes the converter will handle for it (see charge); the
// page keeps its nodes, in document order, while they fit in workPerByte
// units per byte of the page (at least minWork), and the rest is left
// out, which the text says. Ordinary pages spend a few units per byte.
const (
	workPerByte = 64
	minWork     = 1 << 20
	// indentPerList bounds the indent a list or quote level adds to each
	// line inside it ("- ", "10. ", "> ").
	indentPerList = 4
	// maxTokens bounds the tags and texts parsed, and so the tree held in
	// memory (a few hundred bytes a node): 4 MiB of "<br>" is a million
	// nodes, a long documentation page a few tens of thousands.
	maxTokens = 200_000
)

// chrome are elements that are page furniture rather than content: a model
// reading documentation gains nothing from menus and forms.
var chrome = []string{"nav", "footer", "aside", "form", "button", "select", "svg", "canvas", "template", "dialog"}

// newConverter is the HTML to Markdown converter: CommonMark, with the
// chrome removed. It renders nothing more once ctx (the fetch's) is done.
func newConverter() *converter.Converter {
	conv := converter.NewConverter(converter.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin()))
	for _, tag := range chrome {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityStandard)
	}
	conv.Register.Renderer(func(ctx converter.Context, _ converter.Writer, _ *html.Node) converter.RenderStatus {
		if ctx.Err() != nil {
			return converter.RenderSuccess // renders the node as nothing: the walk unwinds
		}
		return converter.RenderTryNext
	}, converter.PriorityEarly-1)
	return conv
}

// conversion is an HTML page turned into Markdown.
type conversion struct {
	Text string
	// Cut says the page did not fit the conversion budget: Text is the
	// Markdown of its beginning.
	Cut bool
	// Work is the budget spent; Budget the page's budget.
	Work, Budget int
}

// markdown converts an HTML document of size bytes to Markdown, its title
// first as a heading; relative links are resolved against pageURL. It
// gives up with ctx's error once ctx is done.
func markdown(ctx context.Context, r io.Reader, size int, pageURL string) (conversion, error) {
	page, err := io.ReadAll(r)
	if err != nil {
		return conversion{}, fmt.Errorf("decode HTML: %w", err)
	}
	page, many := head(page, maxTokens)
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		return conversion{}, fmt.Errorf("parse HTML: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return conversion{}, fmt.Errorf("convert HTML: %w", err)
	}
	c := conversion{Budget: workPerByte*size + minWork}
	b := budget{left: c.Budget}
	c.Cut = !b.visit(doc, place{}) || many
	c.Work = c.Budget - b.left
	title := titleOf(doc)
	md, err := newConverter().ConvertNode(doc, converter.WithDomain(pageURL), converter.WithContext(ctx))
	if err != nil {
		return conversion{}, fmt.Errorf("convert HTML: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return conversion{}, fmt.Errorf("convert HTML: %w", err)
	}
	c.Text = withTitle(title, md)
	return c, nil
}

// withTitle is the Markdown of a page, its title first as a heading.
func withTitle(title string, md []byte) string {
	title = strings.Join(strings.Fields(title), " ")
	text := strings.TrimSpace(string(md))
	if title != "" && !strings.HasPrefix(text, "# "+title) {
		text = "# " + title + "\n\n" + text
	}
	return text
}

// head is the beginning of page holding its first max tokens (tags,
// texts, comments), and whether that is not all of it.
func head(page []byte, max int) ([]byte, bool) {
	if len(page) < 2*max {
		return page, false // a token takes two bytes or more on average: a tag three, texts lie between tags
	}
	z := html.NewTokenizer(bytes.NewReader(page))
	end := 0
	for range max {
		if z.Next() == html.ErrorToken {
			return page, false
		}
		end += len(z.Raw())
	}
	return page[:end], end < len(page)
}

// budget is the work a page may still cost.
type budget struct{ left int }

// place is where a node sits: inside nest buffering elements, lists of
// them lists or quotes, and in preformatted text or not.
type place struct {
	nest, lists int
	pre         bool
}

// visit charges n and its subtree. When the budget runs out it removes
// the node that did not fit and everything after it in document order,
// and reports false.
func (b *budget) visit(n *html.Node, at place) bool {
	if c := charge(n, at); c <= b.left {
		b.left -= c
	} else {
		cutFrom(n)
		return false
	}
	if n.Type == html.ElementNode {
		switch n.DataAtom {
		case atom.Ul, atom.Ol, atom.Blockquote:
			at.nest, at.lists = at.nest+1, at.lists+1
		case atom.Pre, atom.Code, atom.Var, atom.Samp, atom.Kbd, atom.Tt:
			at.nest, at.pre = at.nest+1, true
		case atom.A, atom.B, atom.Strong, atom.I, atom.Em, atom.Img, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			at.nest++
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if !b.visit(c, at) {
			return false
		}
	}
	return true
}

// charge bounds the bytes the converter handles for n: its text, or its
// tag and attributes, copied once by each buffering element around it
// and once more into the page. Text and empty elements (a br, an empty
// paragraph) also start a line and perhaps a blank one, and every line
// carries the indent of the lists around it; so does each line break of
// preformatted text. Whitespace between elements collapses to nothing.
func charge(n *html.Node, at place) int {
	size := len(n.Data)
	for _, a := range n.Attr {
		size += len(a.Key) + len(a.Val)
	}
	lines := 0
	switch {
	case n.Type == html.TextNode && strings.TrimSpace(n.Data) == "" && !at.pre:
	case n.Type == html.TextNode || (n.Type == html.ElementNode && n.FirstChild == nil):
		lines = 2
		if at.pre {
			lines += strings.Count(n.Data, "\n")
		}
	}
	return (size + 1 + lines*(1+indentPerList*at.lists)) * (at.nest + 1)
}

// cutFrom removes n and every node after it in document order.
func cutFrom(n *html.Node) {
	if n.Parent == nil {
		for n.FirstChild != nil {
			n.RemoveChild(n.FirstChild)
		}
		return
	}
	for m := n; m.Parent != nil; m = m.Parent {
		for m.NextSibling != nil {
			m.Parent.RemoveChild(m.NextSibling)
		}
	}
	n.Parent.RemoveChild(n)
}

// titleOf is the text of the document's first <title>.
func titleOf(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Title {
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
		}
		return b.String()
	}
	if n.Type == html.ElementNode && n.DataAtom == atom.Body {
		return ""
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := titleOf(c); t != "" {
			return t
		}
	}
	return ""
}
