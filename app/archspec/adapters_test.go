package archspec_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Adapters use one another only where one is built on the other; anywhere
// else the composition root joins them. An adapter is a folder directly
// under adapters/ with its subpackages (adapters/cursor/... is one
// adapter), so imports inside one adapter are its own business; the
// imports between two adapters are listed here, each with its reason.

// adapterEdge is an import of one adapter's package by another adapter's
// package, both written from the module root ("adapters/postgres").
type adapterEdge struct{ From, To string }

// adapterImports is the allow-list of imports between adapters (production
// code; specs may import any test support). A new edge fails the build
// until it is listed here with its reason and in docs/architecture.md; an
// edge the code no longer has fails until it is removed from both.
var adapterImports = map[adapterEdge]string{
	{"adapters/sqlite", "adapters/relstore"}:   "the SQLite engine implements relstore.Engine; the store rules are written once in relstore",
	{"adapters/postgres", "adapters/relstore"}: "the PostgreSQL engine implements relstore.Engine; the store rules are written once in relstore",
	{"adapters/cursorproxy", "adapters/upstream"}: "intercepted requests Keygate does not serve carry upstream.HeaderUpstreamURL to the upstream forwarder, " +
		"and upstream.IsCursorHost decides which hosts are intercepted",
	{"adapters/control", "adapters/provider/discovery"}:   "the console's model discovery is the provider adapter's discovery.Lister, which speaks each protocol's model listing",
	{"adapters/provider/failure", "adapters/egress"}:      "a provider call the outbound policy refused (egress.RefusedError, RedirectError) is classified as a permanent failure, not retried",
	{"adapters/webfetch", "adapters/egress"}:              "a failed fetch's error is shown to the member and the model through egress.Redact, which leaves out the resolver, the outbound proxy and internal addresses",
	{"adapters/websearch", "adapters/egress"}:             "a failed search's error is shown through egress.Redact, which leaves out the search backend's and the resolver's addresses",
	{"adapters/cursor/picker", "adapters/provider"}:       "what a model offers depends on the vendor whose API its protocol speaks, which the protocol itself declares (protocol.Protocol.Vendor)",
	{"adapters/compatapi", "adapters/provider/anthropic"}: "the compatible API speaks Anthropic Messages, which the protocol package reads and writes (its kind stays named there)",
	{"adapters/compatapi", "adapters/provider/openai"}:    "the compatible API speaks OpenAI Chat and Responses, which the protocol package reads and writes (its kinds stay named there)",
	{"adapters/compatapi", "adapters/provider/wire"}:      "the compatible API writes its JSON answers with the same byte-exact writer as the protocols",
	{"adapters/upstream/upstreamtest", "adapters/ca"}:     "test support: the fake Cursor service serves TLS under a throwaway CA, as the real proxy does",
}

// adapterOf is the adapter a package belongs to ("adapters/cursor" for
// keygate/adapters/cursor/agent), or "" outside adapters/.
func adapterOf(path string) string {
	rest, ok := strings.CutPrefix(path, module+"/adapters/")
	if !ok {
		return ""
	}
	first, _, _ := strings.Cut(rest, "/")
	return "adapters/" + first
}

// crossAdapterEdges lists the imports of the graph between two adapters.
func crossAdapterEdges(graph []pkg) []adapterEdge {
	var out []adapterEdge
	for _, p := range graph {
		from := adapterOf(p.Path)
		for _, imp := range p.Imports {
			if to := adapterOf(imp); from != "" && to != "" && to != from {
				out = append(out, adapterEdge{strings.TrimPrefix(p.Path, module+"/"), strings.TrimPrefix(imp, module+"/")})
			}
		}
	}
	return out
}

// docAdapterEdges reads the table under the "Adapter-to-adapter imports"
// heading of docs/architecture.md: its first two columns, in backticks.
func docAdapterEdges(markdown string) []adapterEdge {
	row := regexp.MustCompile("^\\|\\s*`([\\w/]+)`\\s*\\|\\s*`([\\w/]+)`\\s*\\|")
	var out []adapterEdge
	in := false
	for _, l := range strings.Split(markdown, "\n") {
		if strings.HasPrefix(l, "#") {
			in = strings.TrimSpace(strings.TrimLeft(l, "#")) == "Adapter-to-adapter imports"
			continue
		}
		if m := row.FindStringSubmatch(l); in && m != nil {
			out = append(out, adapterEdge{m[1], m[2]})
		}
	}
	return out
}

func edgeStrings(es []adapterEdge) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.From + " -> " + e.To
	}
	slices.Sort(out)
	return out
}

var _ = Describe("Imports between adapters", func() {
	var edges []adapterEdge
	BeforeEach(func() {
		graph, err := loadGraph()
		Expect(err).NotTo(HaveOccurred())
		edges = crossAdapterEdges(graph)
		Expect(edges).To(ContainElement(adapterEdge{"adapters/sqlite", "adapters/relstore"}), "go list saw the adapters")
	})

	It("follow only the edges of the allow-list, each with its reason", func() {
		var unlisted []adapterEdge
		for _, e := range edges {
			if _, ok := adapterImports[e]; !ok {
				unlisted = append(unlisted, e)
			}
		}
		Expect(edgeStrings(unlisted)).To(BeEmpty(),
			"an adapter imports another adapter outside adapterImports: let the composition root join them, or list the edge with its reason (and in docs/architecture.md)")
	})

	It("are all still in the code: the allow-list names no edge the code has dropped", func() {
		var stale []adapterEdge
		for e := range adapterImports {
			if !slices.Contains(edges, e) {
				stale = append(stale, e)
			}
		}
		Expect(edgeStrings(stale)).To(BeEmpty(), "remove these edges from adapterImports and docs/architecture.md")
	})

	It("are the ones docs/architecture.md lists", func() {
		b, err := os.ReadFile(filepath.Join(repoRoot(), filepath.FromSlash("docs/architecture.md")))
		Expect(err).NotTo(HaveOccurred())
		var listed []adapterEdge
		for e := range adapterImports {
			listed = append(listed, e)
		}
		Expect(edgeStrings(docAdapterEdges(string(b)))).To(Equal(edgeStrings(listed)),
			"the table under \"Adapter-to-adapter imports\" in docs/architecture.md must list exactly adapterImports")
	})

	DescribeTable("the check",
		func(from, imp string, want []adapterEdge) {
			Expect(crossAdapterEdges([]pkg{{Path: from, Imports: []string{imp}}})).To(Equal(want))
		},
		Entry("sees an import of another adapter", "keygate/adapters/control", "keygate/adapters/provider/discovery",
			[]adapterEdge{{"adapters/control", "adapters/provider/discovery"}}),
		Entry("sees a subpackage importing another adapter", "keygate/adapters/cursor/picker", "keygate/adapters/provider",
			[]adapterEdge{{"adapters/cursor/picker", "adapters/provider"}}),
		Entry("leaves imports inside one adapter alone", "keygate/adapters/cursor/agent", "keygate/adapters/cursor/tools", nil),
		Entry("leaves the composition root alone", "keygate/app", "keygate/adapters/sqlite", nil),
		Entry("does not take a shared name prefix for one adapter", "keygate/adapters/cursorproxy", "keygate/adapters/cursor",
			[]adapterEdge{{"adapters/cursorproxy", "adapters/cursor"}}),
	)

	It("reads the doc's table", func() {
		md := "## Other\n| `adapters/a` | `adapters/b` | no |\n### Adapter-to-adapter imports\n\n| From | Imports | Why |\n| --- | --- | --- |\n" +
			"| `adapters/sqlite` | `adapters/relstore` | engine |\n\n## Next\n| `adapters/c` | `adapters/d` | no |\n"
		Expect(docAdapterEdges(md)).To(Equal([]adapterEdge{{"adapters/sqlite", "adapters/relstore"}}))
	})
})
