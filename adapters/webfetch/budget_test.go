package webfetch_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/webfetch"
)

// bomb is markup nested depth deep (open, repeated) followed by line
// repeated up to size bytes: the converter's work grows with depth²
// times lines for lists and quotes, depth times bytes for emphasis.
func bomb(open string, depth int, line string, size int) string {
	var b strings.Builder
	b.WriteString("<html><body>")
	for range depth {
		b.WriteString(open)
	}
	for b.Len() < size {
		b.WriteString(line)
	}
	return b.String()
}

// allocated is the bytes allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// whole is page converted without a budget.
func whole(page, pageURL string) string {
	GinkgoHelper()
	text, err := webfetch.Unbudgeted(page, pageURL)
	Expect(err).NotTo(HaveOccurred())
	return text
}

// countdown is a context that is cancelled once its Err has been asked
// for after times times: a cancellation at a deterministic point of a
// conversion. asked counts every Err.
type countdown struct {
	context.Context
	times, asked atomic.Int64
	once         sync.Once
	done         chan struct{}
}

func newCountdown(times int64) *countdown {
	c := &countdown{Context: context.Background(), done: make(chan struct{})}
	c.times.Store(times)
	return c
}

func (c *countdown) Err() error {
	if c.asked.Add(1) > c.times.Load() {
		c.once.Do(func() { close(c.done) })
		return context.Canceled
	}
	return nil
}

func (c *countdown) Done() <-chan struct{} { return c.done }

var _ = Describe("Converting a page within a budget of work proportional to it", func() {
	ctx := context.Background()

	DescribeTable("converts a page built to make the converter's work explode in bounded work and allocations, its beginning, saying the rest is left out",
		func(page string) {
			var c webfetch.Conversion
			var err error
			alloc := allocated(func() { c, err = webfetch.Markdown(ctx, page, "http://bomb.example.test/") })
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Cut).To(BeTrue())
			Expect(c.Budget).To(Equal(webfetch.WorkPerByte*len(page) + webfetch.MinWork))
			Expect(c.Work).To(BeNumerically("<=", c.Budget))
			Expect(c.Text).To(MatchRegexp(`^(- |1\. ){250}`), "the page's beginning is converted")
			Expect(len(c.Text)).To(BeNumerically("<", len(page)), "the text is no larger than the page")
			// Without the budget the 12 KB list bomb alone allocates 1.7 GB.
			Expect(alloc).To(BeNumerically("<", 256*uint64(len(page))+16<<20), "bytes allocated")
		},
		Entry("lists 250 deep, then 12 KB of lines", bomb("<ul><li>", 250, "x<br>", 12<<10)),
		Entry("lists 250 deep, then 200 KB of lines", bomb("<ul><li>", 250, "x<br>", 200<<10)),
		Entry("lists 250 deep, then 600 KB of lines", bomb("<ol><li>", 250, "x<br>", 600<<10)),
		Entry("lists 250 deep, then 200 KB of preformatted lines", bomb("<ul><li>", 250, "<pre>"+strings.Repeat("x\n", 20000)+"</pre>", 200<<10)),
	)

	DescribeTable("bounds quotes and emphasis nested as deep as the parser allows (512)",
		func(page string) {
			var c webfetch.Conversion
			var err error
			alloc := allocated(func() { c, err = webfetch.Markdown(ctx, page, "http://bomb.example.test/") })
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Work).To(BeNumerically("<=", c.Budget))
			Expect(alloc).To(BeNumerically("<", 256*uint64(len(page))+16<<20), "bytes allocated")
		},
		Entry("quotes", bomb("<blockquote>", 500, "x<br>", 200<<10)),
		Entry("emphasis", bomb("<b><i>", 250, "x ", 200<<10)),
		Entry("links", bomb(`<a href="http://x.example.test/">`, 500, "x ", 200<<10)),
	)

	It("converts no more than its first tokens of a page of very many small elements", func() {
		var b strings.Builder
		for i := range webfetch.MaxTokens {
			fmt.Fprintf(&b, "<p>p%d</p>", i)
		}
		c, err := webfetch.Markdown(ctx, b.String(), "http://many.example.test/")
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Cut).To(BeTrue())
		Expect(c.Text).To(HavePrefix("p0\n\np1\n\n"))
		Expect(c.Text).NotTo(ContainSubstring(fmt.Sprintf("p%d", webfetch.MaxTokens-1)))
	})

	DescribeTable("converts an ordinary page whole, exactly as the converter does without a budget",
		func(page string) {
			c, err := webfetch.Markdown(ctx, page, "http://docs.example.test/guide")
			Expect(err).NotTo(HaveOccurred())
			Expect(c.Cut).To(BeFalse())
			Expect(c.Work).To(BeNumerically("<", 16*len(page)+webfetch.MinWork), "an ordinary page spends a few units per byte")
			Expect(c.Text).To(Equal(whole(page, "http://docs.example.test/guide")))
		},
		Entry("a documentation page of 100 KB", docsPage(400)),
		Entry("a table of contents nested 12 deep", toc(12, 40)),
		Entry("code blocks and quotes in lists", strings.Repeat(`<ol><li>Run<pre><code>go run ./cmd/keygate
go test ./...</code></pre><blockquote><p>Note: <em>this</em> and <strong>that</strong>.</p></blockquote><ul><li>a <a href="/x">link</a></li></ul></li></ol>`, 500)),
	)

	It("stops converting once the fetch's context is done, leaving the rest of the page unrendered", func() {
		page := docsPage(400)
		cancelled := newCountdown(100)
		_, err := webfetch.Markdown(cancelled, page, "http://docs.example.test/")
		Expect(err).To(MatchError(context.Canceled))
		// The converter asks once per element it would render: after the
		// cancellation only the siblings on the way out (the body's 2,000
		// sections) are asked about, none of the page's 10,000 elements
		// below them.
		Expect(cancelled.asked.Load()).To(BeNumerically("<", 100+2100))
	})
})

// docsPage is a documentation-like page of sections sections.
func docsPage(sections int) string {
	var page strings.Builder
	page.WriteString(`<html><head><title>Docs</title><script>var x=1;</script><style>p{}</style></head><body><nav><a href="/">Home</a></nav>`)
	for i := range sections {
		fmt.Fprintf(&page, `<h2>Section %d</h2><p>Call <code>f(%d)</code> as <a href="/s/%d">the reference</a> says, then check the result.</p>`, i, i, i)
		fmt.Fprintf(&page, `<pre><code>for i := range %d {
	fmt.Println(i)
}</code></pre><table><tr><th>a</th><th>b</th></tr><tr><td>%d</td><td>x</td></tr></table>`, i, i)
	}
	page.WriteString(`<footer>end</footer></body></html>`)
	return page.String()
}

// toc is a table of contents of lists nested depth deep, each level with
// width entries linking to a page.
func toc(depth, width int) string {
	var b strings.Builder
	var level func(d int)
	level = func(d int) {
		b.WriteString("<ul>\n")
		for i := range width {
			fmt.Fprintf(&b, "  <li><a href=\"/docs/section/%d/%d\">Section %d.%d</a>", d, i, d, i)
			if d < depth && i == width/2 {
				level(d + 1)
			}
			b.WriteString("</li>\n")
		}
		b.WriteString("</ul>\n")
	}
	level(1)
	return b.String()
}
