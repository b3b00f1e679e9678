package webfetch_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/egress"
	"keygate/adapters/egress/egresstest"
	"keygate/adapters/webfetch"
	"keygate/ports"
)

// internet stands for the public web: an outbound proxy (the operator's
// HTTP_PROXY) that serves absolute-form requests for made-up public names
// itself and records what it was asked. Keygate does not resolve names it
// hands to the proxy, so the public-only policy lets them through, while
// IP literals and names meaning this machine are still checked.
type internet struct {
	*httptest.Server
	mu    sync.Mutex
	pages map[string]http.HandlerFunc
	asked []string
}

func newInternet() *internet {
	in := &internet{pages: map[string]http.HandlerFunc{}}
	in.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		in.mu.Lock()
		in.asked = append(in.asked, r.URL.String())
		h := in.pages[r.URL.String()]
		in.mu.Unlock()
		if h == nil {
			http.NotFound(w, r)
			return
		}
		h(w, r)
	}))
	DeferCleanup(in.Close)
	return in
}

func (in *internet) page(u string, h http.HandlerFunc) {
	in.mu.Lock()
	in.pages[u] = h
	in.mu.Unlock()
}

func (in *internet) html(u, body string) {
	in.page(u, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, body)
	})
}

func (in *internet) requests() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]string(nil), in.asked...)
}

// private is a server on this machine's loopback address, standing for an
// internal service; it counts the connections it accepted.
type private struct {
	*httptest.Server
	accepted atomic.Int32
}

func newPrivate() *private {
	p := &private{}
	p.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "internal secret")
	}))
	p.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			p.accepted.Add(1)
		}
	}
	p.Start()
	DeferCleanup(p.Close)
	return p
}

// fetcher builds the production fetcher: the public-only view of a laptop's
// policy (the most permissive mode, with an allow-list that would open
// loopback and private ranges to provider calls) through the internet's
// proxy.
func fetcher(in *internet, o webfetch.Options, resolver map[string]string) *webfetch.Fetcher {
	GinkgoHelper()
	env := func(k string) string {
		if in != nil && (k == "HTTP_PROXY" || k == "HTTPS_PROXY") {
			return in.URL
		}
		return ""
	}
	eo := egress.Options{Laptop: true, Allow: []string{"127.0.0.0/8", "10.0.0.0/8", "169.254.0.0/16"}, Getenv: env}
	if resolver != nil {
		eo.Resolver = egresstest.Static(resolver)
	}
	policy, err := egress.New(context.Background(), eo)
	Expect(err).NotTo(HaveOccurred())
	o.Transport = policy.Public().Transport()
	f, err := webfetch.New(o)
	Expect(err).NotTo(HaveOccurred())
	return f
}

var _ = Describe("Fetch", func() {
	ctx := context.Background()

	It("turns an HTML page into Markdown with its title, absolute links and code, without scripts or page chrome", func() {
		in := newInternet()
		in.html("http://docs.example.test/guide", `<!doctype html><html><head><title>The  Guide</title>
			<style>body{color:red}</style><script>track()</script></head><body>
			<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
			<h2>Install</h2><p>Run <code>keygate serve</code>, then read <a href="/next">the next page</a>.</p>
			<pre><code>go run ./cmd/keygate</code></pre>
			<ul><li>one</li><li>two</li></ul>
			<footer>© Example</footer></body></html>`)
		page, err := fetcher(in, webfetch.Options{}, nil).Fetch(ctx, "http://docs.example.test/guide")
		Expect(err).NotTo(HaveOccurred())
		Expect(page.ContentType).To(Equal("text/html"))
		Expect(page.Status).To(Equal(200))
		Expect(page.Truncated).To(BeFalse())
		Expect(page.Text).To(HavePrefix("# The Guide\n\n## Install"))
		Expect(page.Text).To(ContainSubstring("Run `keygate serve`, then read [the next page](http://docs.example.test/next)."))
		Expect(page.Text).To(ContainSubstring("```\ngo run ./cmd/keygate\n```"))
		Expect(page.Text).To(ContainSubstring("- one\n- two"))
		Expect(page.Text).NotTo(Or(ContainSubstring("track()"), ContainSubstring("color:red"), ContainSubstring("About"), ContainSubstring("©")))
	})

	It("decodes a page from its declared charset", func() {
		in := newInternet()
		in.page("http://latin.example.test/", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
			_, _ = w.Write([]byte("<p>Caf\xe9 cr\xe8me</p>"))
		})
		page, err := fetcher(in, webfetch.Options{}, nil).Fetch(ctx, "http://latin.example.test/")
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Text).To(Equal("Café crème"))
	})

	It("passes plain text and JSON as they are, and refuses what is not text", func() {
		in := newInternet()
		in.page("http://api.example.test/v1", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"ok":true}`)
		})
		in.page("http://img.example.test/logo.png", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write([]byte("\x89PNG\r\n\x1a\n"))
		})
		f := fetcher(in, webfetch.Options{}, nil)
		page, err := f.Fetch(ctx, "http://api.example.test/v1")
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Text).To(Equal(`{"ok":true}`))
		_, err = f.Fetch(ctx, "http://img.example.test/logo.png")
		Expect(err).To(MatchError(ports.ErrUnsupportedContent))
		Expect(err).To(MatchError(ContainSubstring("image/png")))
	})

	It("fails on an HTTP error status, naming it", func() {
		in := newInternet()
		_, err := fetcher(in, webfetch.Options{}, nil).Fetch(ctx, "http://gone.example.test/")
		Expect(err).To(MatchError(ContainSubstring("HTTP 404 Not Found")))
	})

	It("reads at most its byte cap of the decoded body, gzip bombs included, and says the page was cut", func() {
		in := newInternet()
		in.page("http://big.example.test/", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Header().Set("Content-Encoding", "gzip")
			gz := gzip.NewWriter(w)
			chunk := bytes.Repeat([]byte("a"), 1<<20)
			for range 64 { // 64 MiB once inflated, a few tens of kilobytes on the wire
				if _, err := gz.Write(chunk); err != nil {
					return
				}
			}
			_ = gz.Close()
		})
		page, err := fetcher(in, webfetch.Options{MaxBytes: 64 << 10}, nil).Fetch(ctx, "http://big.example.test/")
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Truncated).To(BeTrue())
		Expect(len(page.Text)).To(BeNumerically("<", 65<<10))
		Expect(page.Text).To(HaveSuffix("[Keygate cut the page here: it is longer than 65536 bytes.]"))
	})

	It("stops reading an endless page at its byte cap instead of waiting for its end", func() {
		in := newInternet()
		in.page("http://endless.example.test/", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			chunk := bytes.Repeat([]byte("b"), 32<<10)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		})
		page, err := fetcher(in, webfetch.Options{MaxBytes: 256 << 10, Timeout: 5 * time.Second}, nil).Fetch(ctx, "http://endless.example.test/")
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Truncated).To(BeTrue())
	})

	It("cuts the text handed on at its text cap without splitting a character", func() {
		in := newInternet()
		in.page("http://long.example.test/", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = io.WriteString(w, strings.Repeat("é", 1000))
		})
		page, err := fetcher(in, webfetch.Options{MaxText: 101}, nil).Fetch(ctx, "http://long.example.test/")
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Truncated).To(BeTrue())
		Expect(page.Text).To(HavePrefix(strings.Repeat("é", 50) + "\n\n[Keygate cut"))
	})

	It("says a page its conversion budget cut short was cut, and why", func() {
		in := newInternet()
		in.html("http://bomb.example.test/", bomb("<ul><li>", 250, "x<br>", 12<<10))
		page, err := fetcher(in, webfetch.Options{}, nil).Fetch(ctx, "http://bomb.example.test/")
		Expect(err).NotTo(HaveOccurred())
		Expect(page.Truncated).To(BeTrue())
		Expect(page.Text).To(HaveSuffix("converting the rest would take more work than Keygate spends on a page of its size; the rest is left out.]"))
	})

	It("names the host it could not resolve, never the resolver it asked", func() {
		_, err := fetcher(nil, webfetch.Options{}, map[string]string{}).Fetch(ctx, "http://nosuch.example.test/")
		Expect(err).To(MatchError("fetch http://nosuch.example.test/: could not resolve host nosuch.example.test: no such host"))
		var dns *net.DNSError
		Expect(errors.As(err, &dns)).To(BeTrue(), "the error still wraps the resolver's")
		Expect(dns.Error()).To(ContainSubstring(" on "), "Go's message names the resolver's address")
	})

	It("never names the outbound proxy it could not reach", func() {
		in := newInternet()
		proxy := in.Listener.Addr().String()
		in.Close()
		_, err := fetcher(in, webfetch.Options{}, nil).Fetch(ctx, "http://docs.example.test/")
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).NotTo(ContainSubstring(proxy))
		Expect(err.Error()).NotTo(ContainSubstring("127.0.0.1"))
		Expect(err).To(MatchError(ContainSubstring("docs.example.test")))
	})

	It("gives up on a page that does not arrive within its time bound", func() {
		in := newInternet()
		release := make(chan struct{})
		DeferCleanup(func() { close(release) })
		in.page("http://slow.example.test/", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, "first bytes")
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-release:
			}
		})
		_, err := fetcher(in, webfetch.Options{Timeout: 200 * time.Millisecond}, nil).Fetch(ctx, "http://slow.example.test/")
		Expect(err).To(MatchError(ContainSubstring("within 200ms")))
	})

	It("follows a redirect to another public origin, and no further than five requests", func() {
		in := newInternet()
		in.page("http://old.example.test/a", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://new.example.test/a", http.StatusMovedPermanently)
		})
		in.html("http://new.example.test/a", "<p>moved here</p>")
		for i := range 6 {
			next := "http://loop.example.test/" + string(rune('a'+i+1))
			in.page("http://loop.example.test/"+string(rune('a'+i)), func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, next, http.StatusFound) })
		}
		f := fetcher(in, webfetch.Options{}, nil)
		page, err := f.Fetch(ctx, "http://old.example.test/a")
		Expect(err).NotTo(HaveOccurred())
		Expect(page.URL).To(Equal("http://new.example.test/a"))
		Expect(page.Text).To(Equal("moved here"))
		_, err = f.Fetch(ctx, "http://loop.example.test/a")
		Expect(err).To(MatchError(ContainSubstring("stopped after 5 redirects")))
	})

	It("refuses URLs that are not http(s), or that carry credentials, before any request", func() {
		in := newInternet()
		f := fetcher(in, webfetch.Options{}, nil)
		for _, u := range []string{"file:///etc/passwd", "gopher://example.test/", "http://user:pw@docs.example.test/", "http:///nohost", "ftp://example.test/x"} {
			_, err := f.Fetch(ctx, u)
			Expect(err).To(HaveOccurred(), u)
		}
		in.page("http://bounce.example.test/", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
		})
		_, err := f.Fetch(ctx, "http://bounce.example.test/")
		Expect(err).To(MatchError(ContainSubstring("redirect refused")))
		Expect(in.requests()).To(Equal([]string{"http://bounce.example.test/"}))
	})
})

var _ = Describe("Fetch and server-side request forgery", func() {
	ctx := context.Background()

	DescribeTable("never reaches a non-public address, even on a laptop with an allow-list that opens it to provider calls",
		func(target func(p *private) string) {
			in := newInternet()
			p := newPrivate()
			_, err := fetcher(in, webfetch.Options{}, map[string]string{"intranet.example": "127.0.0.1"}).Fetch(ctx, target(p))
			Expect(err).To(MatchError(ports.ErrDestinationRefused))
			Expect(err).To(MatchError(ContainSubstring("must be a public address")))
			Expect(p.accepted.Load()).To(BeZero(), "the internal server accepted no connection")
			for _, asked := range in.requests() {
				Expect(asked).NotTo(Or(ContainSubstring("169.254"), ContainSubstring("10.0.0"), ContainSubstring("127.0.0.1")),
					"the outbound proxy was never asked for the internal address")
			}
		},
		Entry("the cloud metadata address", func(*private) string { return "http://169.254.169.254/latest/meta-data/iam/" }),
		Entry("a private address", func(*private) string { return "http://10.0.0.7:8080/admin" }),
		Entry("loopback", func(p *private) string { return p.URL + "/" }),
		Entry("localhost by name", func(p *private) string { return strings.Replace(p.URL, "127.0.0.1", "localhost", 1) + "/" }),
		Entry("IPv6 loopback", func(p *private) string { return "http://[::1]:" + port(p.URL) + "/" }),
		Entry("the unspecified address", func(p *private) string { return "http://0.0.0.0:" + port(p.URL) + "/" }),
	)

	It("never reaches a name that resolves to a private address when fetching directly", func() {
		p := newPrivate()
		_, err := fetcher(nil, webfetch.Options{}, map[string]string{"intranet.example": "127.0.0.1"}).
			Fetch(ctx, "http://intranet.example:"+port(p.URL)+"/")
		Expect(err).To(MatchError(ports.ErrDestinationRefused))
		Expect(err.Error()).NotTo(ContainSubstring("127.0.0.1"), "the refusal does not tell what an internal name resolves to")
		Expect(err).To(MatchError(ContainSubstring("intranet.example:" + port(p.URL) + " refused")))
		Expect(p.accepted.Load()).To(BeZero())
	})

	DescribeTable("refuses a redirect from a public page to a non-public address, like a direct request to it",
		func(location func(p *private) string) {
			in := newInternet()
			p := newPrivate()
			in.page("http://evil.example.test/r", func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, location(p), http.StatusFound)
			})
			_, err := fetcher(in, webfetch.Options{}, nil).Fetch(ctx, "http://evil.example.test/r")
			Expect(err).To(MatchError(ports.ErrDestinationRefused))
			Expect(p.accepted.Load()).To(BeZero())
			Expect(in.requests()).To(Equal([]string{"http://evil.example.test/r"}))
		},
		Entry("to the metadata address", func(*private) string { return "http://169.254.169.254/latest/meta-data/" }),
		Entry("to a private address", func(*private) string { return "http://192.168.1.1/" }),
		Entry("to loopback", func(p *private) string { return p.URL + "/internal" }),
	)
})

func port(u string) string { return u[strings.LastIndexByte(u, ':')+1:] }
