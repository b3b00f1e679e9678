package webfetch

import (
	"context"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"
)

// Conversion is a page converted by Markdown.
type Conversion = conversion

// Markdown converts page as a fetch of pageURL would.
func Markdown(ctx context.Context, page, pageURL string) (Conversion, error) {
	return markdown(ctx, strings.NewReader(page), len(page), pageURL)
}

// The conversion budget.
const (
	WorkPerByte = workPerByte
	MinWork     = minWork
	MaxTokens   = maxTokens
)

// Unbudgeted converts page as a fetch did before conversions had a
// budget: the whole page, whatever it costs.
func Unbudgeted(page, pageURL string) (string, error) {
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		return "", err
	}
	title := titleOf(doc)
	md, err := newConverter().ConvertNode(doc, converter.WithDomain(pageURL))
	return withTitle(title, md), err
}
