package webfetch_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"keygate/adapters/webfetch"
)

// BenchmarkFetchDocsPage fetches and converts a documentation-like page of
// about 100 KB (headings, paragraphs with links and code, code blocks, a
// table, navigation and scripts) from a local server.
func BenchmarkFetchDocsPage(b *testing.B) {
	var page strings.Builder
	page.WriteString(`<html><head><title>Docs</title><script>var x=1;</script><style>p{}</style></head><body><nav><a href="/">Home</a></nav>`)
	for i := range 400 {
		fmt.Fprintf(&page, `<h2>Section %d</h2><p>Call <code>f(%d)</code> as <a href="/s/%d">the reference</a> says, then check the result.</p>`, i, i, i)
		fmt.Fprintf(&page, `<pre><code>for i := range %d {
	fmt.Println(i)
}</code></pre><table><tr><th>a</th><th>b</th></tr><tr><td>%d</td><td>x</td></tr></table>`, i, i)
	}
	page.WriteString(`<footer>end</footer></body></html>`)
	body := page.String()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, body)
	}))
	defer srv.Close()
	f, err := webfetch.New(webfetch.Options{Transport: http.DefaultTransport})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := f.Fetch(context.Background(), srv.URL)
		if err != nil || p.Truncated {
			b.Fatal(err, p.Truncated)
		}
	}
}

// nestedListBomb is the page of the hardening report: lists nested 250
// deep, then "x<br>" lines up to size bytes. A converter whose work grows
// with depth times lines turns 12 KB of it into gigabytes of copying.
func nestedListBomb(size int) string {
	var b strings.Builder
	b.WriteString("<html><body>")
	for range 250 {
		b.WriteString("<ul><li>")
	}
	for b.Len() < size {
		b.WriteString("x<br>")
	}
	return b.String()
}

// BenchmarkFetchNestedListBomb fetches and converts the nested-list bomb
// of 12 KB, 200 KB and 600 KB from a local server.
func BenchmarkFetchNestedListBomb(b *testing.B) {
	for _, size := range []int{12 << 10, 200 << 10, 600 << 10} {
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			body := nestedListBomb(size)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				_, _ = io.WriteString(w, body)
			}))
			defer srv.Close()
			f, err := webfetch.New(webfetch.Options{Transport: http.DefaultTransport, Timeout: 10 * time.Minute})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.Fetch(context.Background(), srv.URL); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
