package archspec_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

const llmPath = module + "/domain/llm"

// kindConstants returns the names of the constants of type ProviderKind
// that domain/llm declares.
func kindConstants(root string) ([]string, error) {
	fset := token.NewFileSet()
	matches, err := filepath.Glob(filepath.Join(root, "domain", "llm", "*.go"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, path := range matches {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				if id, ok := v.Type.(*ast.Ident); ok && id.Name == "ProviderKind" {
					for _, n := range v.Names {
						names = append(names, n.Name)
					}
				}
			}
		}
	}
	return names, nil
}

// namedKinds returns the llm.ProviderKind constants one Go source names.
func namedKinds(src []byte, kinds []string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "src.go", src, 0)
	if err != nil {
		return nil, err
	}
	local := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == llmPath {
			local = "llm"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" {
		return nil, nil
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == local && slices.Contains(kinds, sel.Sel.Name) {
				out = append(out, local+"."+sel.Sel.Name)
			}
		}
		return true
	})
	return out, nil
}

// protocolPackages are the packages that register a protocol: those
// adapters/provider/builtin.go imports. Each knows its own kind.
func protocolPackages(root string) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(root, "adapters", "provider", "builtin.go"), nil, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if rel, ok := strings.CutPrefix(p, module+"/"); ok {
			out = append(out, rel)
		}
	}
	return out, nil
}

// kindTestSupport are test support packages that script the same
// conversation on every protocol for specs; production code never imports
// them.
var kindTestSupport = []string{"adapters/provider/providertest"}

var _ = Describe("Provider protocols outside their own packages", func() {
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(here), "..", "..")

	It("are never named by a use case or an adapter: app/ below the composition root asks ports.ProviderProtocols, adapters ask the protocol value", func() {
		kinds, err := kindConstants(root)
		Expect(err).NotTo(HaveOccurred())
		Expect(kinds).To(ContainElement("ProviderAnthropic"), "the domain's kind constants were found")
		own, err := protocolPackages(root)
		Expect(err).NotTo(HaveOccurred())
		Expect(own).To(ContainElements("adapters/provider/openai", "adapters/provider/anthropic"), "builtin.go's protocol packages were found")
		skip := append(own, kindTestSupport...)
		var found, walked []string
		for _, top := range []string{"app", "adapters"} {
			err = filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
					filepath.Dir(path) == filepath.Join(root, "app") {
					return err
				}
				rel, _ := filepath.Rel(root, path)
				if slices.Contains(skip, filepath.ToSlash(filepath.Dir(rel))) {
					return nil
				}
				walked = append(walked, filepath.ToSlash(rel))
				src, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				names, err := namedKinds(src, kinds)
				for _, n := range names {
					found = append(found, rel+": "+n)
				}
				return err
			})
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(walked).To(ContainElements("app/run/engine.go", "adapters/cursor/picker/picker.go"), "the walk saw app/ and adapters/")
		Expect(found).To(BeEmpty(), "let the protocol (adapters/provider/protocol.Protocol) say what the code needs to know about it")
	})

	DescribeTable("the check",
		func(src string, want []string) {
			Expect(namedKinds([]byte(src), []string{"ProviderAnthropic", "ProviderOpenAIChat"})).To(Equal(want))
		},
		Entry("finds a switch on a kind", "package x\nimport \"keygate/domain/llm\"\nfunc f(k llm.ProviderKind) bool { switch k { case llm.ProviderAnthropic: return true }; return false }",
			[]string{"llm.ProviderAnthropic"}),
		Entry("finds a kind under another import name", "package x\nimport d \"keygate/domain/llm\"\nvar k = d.ProviderOpenAIChat",
			[]string{"d.ProviderOpenAIChat"}),
		Entry("lets the kind type and other names pass", "package x\nimport \"keygate/domain/llm\"\nvar k llm.ProviderKind\nvar e *llm.ProviderError",
			nil),
	)
})
