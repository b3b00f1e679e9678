package webfetch

import (
	"fmt"
	"io"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// chrome are elements that are page furniture rather than content: a model
// reading documentation gains nothing from menus and forms.
var chrome = []string{"nav", "footer", "aside", "form", "button", "select", "svg", "canvas", "template", "dialog"}

// newConverter is the HTML to Markdown converter: CommonMark, with the
// chrome removed.
func newConverter() *converter.Converter {
	conv := converter.NewConverter(converter.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin()))
	for _, tag := range chrome {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityStandard)
	}
	return conv
}

// markdown converts an HTML document to Markdown, its title first as a
// heading; relative links are resolved against pageURL.
func markdown(r io.Reader, pageURL string) (string, error) {
	doc, err := html.Parse(r)
	if err != nil {
		return "", fmt.Errorf("parse HTML: %w", err)
	}
	title := strings.Join(strings.Fields(titleOf(doc)), " ")
	md, err := newConverter().ConvertNode(doc, converter.WithDomain(pageURL))
	if err != nil {
		return "", fmt.Errorf("convert HTML: %w", err)
	}
	text := strings.TrimSpace(string(md))
	if title != "" && !strings.HasPrefix(text, "# "+title) {
		text = "# " + title + "\n\n" + text
	}
	return text, nil
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
