package archspec_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Log keys are one vocabulary (CONTRIBUTING.md, "How code is written"):
// snake_case, and the id of a user, run, conversation, request, call or
// round is always <name>_id, so one query finds a request's lines in every
// component.

// logKeySynonyms maps a key Keygate does not write to the one it does.
var logKeySynonyms = map[string]string{
	"user": "user_id", "run": "run_id", "conversation": "conversation_id",
	"request": "request_id", "call": "call_id", "round": "round_id",
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// logKeys returns the keys of the zap fields one Go source builds
// (zap.String("run_id", ...), zap.Int(...), ...).
func logKeys(src []byte) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "src.go", src, 0)
	if err != nil {
		return nil, err
	}
	local := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "go.uber.org/zap" {
			local = "zap"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" {
		return nil, nil
	}
	var keys []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); !ok || x.Name != local {
			return true
		}
		if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if k, err := strconv.Unquote(lit.Value); err == nil {
				keys = append(keys, k)
			}
		}
		return true
	})
	return keys, nil
}

// logKeyProblems checks the keys of one file.
func logKeyProblems(rel string, keys []string) (problems []string) {
	for _, k := range keys {
		switch {
		case !snakeCase.MatchString(k):
			problems = append(problems, rel+": log key "+strconv.Quote(k)+" is not snake_case")
		case logKeySynonyms[k] != "":
			problems = append(problems, rel+": log key "+strconv.Quote(k)+" is written "+logKeySynonyms[k])
		}
	}
	return problems
}

var _ = Describe("Log keys", func() {
	It("are snake_case and one vocabulary: an id is always <name>_id", func() {
		root := repoRoot()
		var problems, walked []string
		for _, top := range []string{"app", "adapters", "cmd"} {
			err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
					return err
				}
				src, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				keys, err := logKeys(src)
				rel, _ := filepath.Rel(root, path)
				rel = filepath.ToSlash(rel)
				if len(keys) > 0 {
					walked = append(walked, rel)
				}
				problems = append(problems, logKeyProblems(rel, keys)...)
				return err
			})
			Expect(err).NotTo(HaveOccurred())
		}
		Expect(walked).To(ContainElement("app/run/engine.go"), "the walk found zap fields")
		Expect(problems).To(BeEmpty())
	})

	DescribeTable("the check",
		func(src string, want []string) {
			keys, err := logKeys([]byte(src))
			Expect(err).NotTo(HaveOccurred())
			problems := logKeyProblems("x.go", keys)
			Expect(problems).To(Equal(want))
		},
		Entry("accepts the vocabulary", "package x\nimport \"go.uber.org/zap\"\nvar f = []zap.Field{zap.String(\"run_id\", \"r\"), zap.Int(\"retry_in\", 1)}", nil),
		Entry("refuses a synonym of an id", "package x\nimport \"go.uber.org/zap\"\nvar f = zap.String(\"user\", \"u\")",
			[]string{`x.go: log key "user" is written user_id`}),
		Entry("refuses camelCase under another import name", "package x\nimport z \"go.uber.org/zap\"\nvar f = z.String(\"requestId\", \"r\")",
			[]string{`x.go: log key "requestId" is not snake_case`}),
		Entry("leaves messages and other packages alone", "package x\nimport \"fmt\"\nvar s = fmt.Sprint(\"User\")", nil),
	)
})
