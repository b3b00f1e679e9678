package websearch_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/egress"
	"keygate/adapters/egress/egresstest"
	"keygate/adapters/websearch"
	"keygate/ports"
)

// fake is a search backend's HTTP server that records its requests.
type fake struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newFake(h http.HandlerFunc) *fake {
	f := &fake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.reqs = append(f.reqs, r.Clone(r.Context()))
		f.mu.Unlock()
		h(w, r)
	}))
	DeferCleanup(f.Close)
	return f
}

func (f *fake) requests() []*http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*http.Request(nil), f.reqs...)
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body)
}

// client is how the composition root gives backends their HTTP client:
// redirects stay on the first request's origin.
func client() *http.Client { return &http.Client{CheckRedirect: egress.SameOriginRedirects} }

// searxngAnswer is a SearXNG /search?format=json answer in the shape its
// JSON format writes (results with engine metadata, answers, infoboxes,
// suggestions), as documented in its Search API.
const searxngAnswer = `{
  "query": "keygate egress",
  "number_of_results": 0,
  "results": [
    {"url": "https://docs.example.org/egress", "title": "Egress &amp; policy", "content": "How outbound connections are decided.",
     "engine": "duckduckgo", "parsed_url": ["https", "docs.example.org", "/egress", "", "", ""], "template": "default.html",
     "engines": ["duckduckgo", "brave"], "positions": [1, 2], "score": 4.0, "category": "general", "publishedDate": null},
    {"url": "javascript:alert(1)", "title": "bad", "content": "dropped", "engine": "x", "engines": ["x"], "positions": [2], "score": 1, "category": "general"},
    {"url": "http://blog.example.net/post", "title": "A post", "content": "", "engine": "bing", "engines": ["bing"], "positions": [3], "score": 0.5, "category": "general"},
    {"url": "https://third.example.com/", "title": "Third", "content": "third", "engine": "bing", "engines": ["bing"], "positions": [4], "score": 0.2, "category": "general"}
  ],
  "answers": [], "corrections": [], "infoboxes": [], "suggestions": ["keygate proxy"], "unresponsive_engines": [["google", "timeout"]]
}`

// braveAnswer is a Brave Search WebSearchApiResponse: the web results
// carry <strong> around matched words and extra snippets.
const braveAnswer = `{
  "type": "search",
  "query": {"original": "keygate egress", "show_strict_warning": false, "is_navigational": false, "spellcheck_off": true, "country": "us", "more_results_available": true},
  "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": false}]},
  "web": {
    "type": "search",
    "results": [
      {"type": "search_result", "subtype": "generic", "title": "Keygate <strong>egress</strong> policy", "url": "https://docs.example.org/egress",
       "is_source_local": false, "is_source_both": false, "description": "The <strong>egress</strong> policy decides every <em>connection</em>, &amp; more.<br>Next line.",
       "profile": {"name": "Example", "url": "https://docs.example.org/egress", "long_name": "docs.example.org", "img": "https://imgs.search.brave.com/x"},
       "language": "en", "family_friendly": true, "extra_snippets": ["another excerpt"]},
      {"type": "search_result", "title": "No description", "url": "https://b.example.com/", "description": "", "extra_snippets": ["from extra snippets"], "family_friendly": true}
    ],
    "family_friendly": true
  }
}`

var _ = Describe("SearXNG", func() {
	It("asks the instance's JSON API under its base path and returns plain results, best first, within the limit", func() {
		f := newFake(func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, searxngAnswer) })
		s, err := websearch.NewSearXNG(websearch.Options{BaseURL: f.URL + "/searx/", HTTP: client()})
		Expect(err).NotTo(HaveOccurred())
		res, err := s.Search(context.Background(), "  keygate\n egress ", 2)
		Expect(err).NotTo(HaveOccurred())
		Expect(res).To(Equal([]ports.WebResult{
			{Title: "Egress & policy", URL: "https://docs.example.org/egress", Snippet: "How outbound connections are decided."},
			{Title: "A post", URL: "http://blog.example.net/post"},
		}), "the javascript: result is dropped")
		r := f.requests()[0]
		Expect(r.URL.Path).To(Equal("/searx/search"))
		Expect(r.URL.Query().Get("q")).To(Equal("keygate egress"))
		Expect(r.URL.Query().Get("format")).To(Equal("json"))
	})

	It("explains a 403 as the json format being off on the instance", func() {
		f := newFake(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "Forbidden", http.StatusForbidden) })
		s, _ := websearch.NewSearXNG(websearch.Options{BaseURL: f.URL, HTTP: client()})
		_, err := s.Search(context.Background(), "x", 0)
		Expect(err).To(MatchError(ContainSubstring("search.formats")))
	})

	It("answers no results with an empty list, not an error", func() {
		f := newFake(func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, `{"query":"zzz","number_of_results":0,"results":[],"answers":[],"corrections":[],"infoboxes":[],"suggestions":[],"unresponsive_engines":[]}`)
		})
		s, _ := websearch.NewSearXNG(websearch.Options{BaseURL: f.URL, HTTP: client()})
		res, err := s.Search(context.Background(), "zzz", 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(res).To(BeEmpty())
		Expect(res).NotTo(BeNil())
	})

	It("needs a base URL", func() {
		_, err := websearch.NewSearXNG(websearch.Options{HTTP: client()})
		Expect(err).To(MatchError(ContainSubstring("base URL")))
	})
})

var _ = Describe("Brave Search", func() {
	const key = "BSA-secret-key-0123456789"

	It("sends the key in X-Subscription-Token only and returns the web results without markup", func() {
		f := newFake(func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, braveAnswer) })
		b, err := websearch.NewBrave(websearch.Options{BaseURL: f.URL, APIKey: key, HTTP: client()})
		Expect(err).NotTo(HaveOccurred())
		res, err := b.Search(context.Background(), "keygate egress", 5)
		Expect(err).NotTo(HaveOccurred())
		Expect(res).To(Equal([]ports.WebResult{
			{Title: "Keygate egress policy", URL: "https://docs.example.org/egress", Snippet: "The egress policy decides every connection, & more. Next line."},
			{Title: "No description", URL: "https://b.example.com/", Snippet: "from extra snippets"},
		}))
		r := f.requests()[0]
		Expect(r.URL.Path).To(Equal("/res/v1/web/search"))
		Expect(r.URL.Query().Get("q")).To(Equal("keygate egress"))
		Expect(r.URL.Query().Get("count")).To(Equal("5"))
		Expect(r.Header.Get("X-Subscription-Token")).To(Equal(key))
		Expect(r.Header.Get("Accept")).To(Equal("application/json"))
		Expect(r.URL.String()).NotTo(ContainSubstring(key))
	})

	It("reports the API's own error code and detail, never the key", func() {
		f := newFake(func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 422, `{"type":"ErrorResponse","error":{"id":"c3f3","status":422,"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid.","meta":{}},"time":1735689600}`)
		})
		b, _ := websearch.NewBrave(websearch.Options{BaseURL: f.URL, APIKey: key, HTTP: client()})
		_, err := b.Search(context.Background(), "x", 0)
		Expect(err).To(MatchError(And(ContainSubstring("422"), ContainSubstring("SUBSCRIPTION_TOKEN_INVALID"), ContainSubstring("token is invalid"))))
		Expect(err.Error()).NotTo(ContainSubstring(key))
	})

	It("cuts a long query at a word boundary within the API's 400 characters and asks at most 20 results", func() {
		f := newFake(func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, `{"type":"search","web":{"results":[]}}`)
		})
		b, _ := websearch.NewBrave(websearch.Options{BaseURL: f.URL, APIKey: key, HTTP: client()})
		_, err := b.Search(context.Background(), strings.Repeat("word ", 200), 50)
		Expect(err).NotTo(HaveOccurred())
		q := f.requests()[0].URL.Query()
		Expect(len(q.Get("q"))).To(BeNumerically("<=", 400))
		Expect(q.Get("q")).To(HaveSuffix("word"))
		Expect(q.Get("count")).To(Equal("20"))
	})

	It("needs a key", func() {
		_, err := websearch.NewBrave(websearch.Options{HTTP: client()})
		Expect(err).To(MatchError(ContainSubstring("API key")))
	})
})

var _ = Describe("Every search backend", func() {
	type backend struct {
		name string
		make func(base string, o websearch.Options) (ports.WebSearcher, error)
	}
	backends := []backend{
		{"SearXNG", func(base string, o websearch.Options) (ports.WebSearcher, error) {
			o.BaseURL = base
			return websearch.NewSearXNG(o)
		}},
		{"Brave", func(base string, o websearch.Options) (ports.WebSearcher, error) {
			o.BaseURL, o.APIKey = base, "k"
			return websearch.NewBrave(o)
		}},
	}
	for _, b := range backends {
		It(b.name+" gives up after its time bound", func() {
			release := make(chan struct{})
			DeferCleanup(func() { close(release) })
			f := newFake(func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-release:
				}
			})
			s, err := b.make(f.URL, websearch.Options{HTTP: client(), Timeout: 100 * time.Millisecond})
			Expect(err).NotTo(HaveOccurred())
			_, err = s.Search(context.Background(), "slow", 0)
			Expect(errors.Is(err, context.DeadlineExceeded)).To(BeTrue(), "%v", err)
		})

		It(b.name+" refuses an answer larger than its byte bound", func() {
			f := newFake(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, `{"results":[{"title":"`+strings.Repeat("x", 3<<20)+`"}]}`)
			})
			s, _ := b.make(f.URL, websearch.Options{HTTP: client()})
			_, err := s.Search(context.Background(), "big", 0)
			Expect(err).To(MatchError(ContainSubstring("larger than")))
		})

		It(b.name+" stops at a cancelled context", func() {
			f := newFake(func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, `{}`) })
			s, _ := b.make(f.URL, websearch.Options{HTTP: client()})
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := s.Search(ctx, "x", 0)
			Expect(errors.Is(err, context.Canceled)).To(BeTrue(), "%v", err)
		})

		It(b.name+" never shows the member the backend's address or the resolver it asked", func() {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			Expect(err).NotTo(HaveOccurred())
			closed := l.Addr().String()
			Expect(l.Close()).To(Succeed())
			s, _ := b.make("http://"+closed, websearch.Options{HTTP: client()})
			_, err = s.Search(context.Background(), "x", 0)
			Expect(err).To(MatchError(ContainSubstring("unreachable: could not connect: ")))
			Expect(err.Error()).NotTo(ContainSubstring("127.0.0.1"))

			dialer := &net.Dialer{Resolver: egresstest.Static(nil)}
			hc := &http.Client{Transport: &http.Transport{DialContext: dialer.DialContext}}
			s, _ = b.make("http://searxng.corp.internal:8888", websearch.Options{HTTP: hc})
			_, err = s.Search(context.Background(), "x", 0)
			Expect(err).To(MatchError(HaveSuffix("unreachable: could not resolve host: no such host")))
			var dns *net.DNSError
			Expect(errors.As(err, &dns)).To(BeTrue(), "Go's error, which names the resolver, is still wrapped")
		})

		It(b.name+" refuses an empty query without asking the backend", func() {
			f := newFake(func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 200, `{}`) })
			s, _ := b.make(f.URL, websearch.Options{HTTP: client()})
			_, err := s.Search(context.Background(), "  ", 0)
			Expect(err).To(MatchError(ContainSubstring("empty")))
			Expect(f.requests()).To(BeEmpty())
		})
	}
})
