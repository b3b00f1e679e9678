package archspec_test

import (
	"os/exec"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// isTestSupport reports whether a package exists for specs: Keygate's
// <name>test packages (pgtest, cursortest, porttest, ...), the standard
// library's testing packages and the spec libraries.
func isTestSupport(path string) bool {
	last := path[strings.LastIndex(path, "/")+1:]
	return (strings.HasPrefix(path, module+"/") && strings.HasSuffix(last, "test")) || path == "testing" || strings.HasPrefix(path, "testing/") ||
		path == "net/http/httptest" || isTestLib(path)
}

var _ = Describe("The keygate binary", func() {
	It("links no test support, as the test support packages' docs promise (production code never imports them)", func() {
		Expect(touchSources(repoRoot())).To(Succeed())
		cmd := exec.Command("go", "list", "-deps", "./cmd/keygate")
		cmd.Dir = repoRoot()
		out, err := cmd.Output()
		Expect(err).NotTo(HaveOccurred())
		deps := strings.Fields(string(out))
		Expect(deps).To(ContainElement(module+"/app"), "go list saw the binary's dependencies")
		var linked []string
		for _, d := range deps {
			if isTestSupport(d) {
				linked = append(linked, d)
			}
		}
		Expect(linked).To(BeEmpty())
	})

	DescribeTable("test support is",
		func(path string, want bool) { Expect(isTestSupport(path)).To(Equal(want)) },
		Entry("a Keygate package named for specs", "keygate/adapters/pgtest", true),
		Entry("a contract suite", "keygate/ports/porttest", true),
		Entry("gomega", "github.com/onsi/gomega", true),
		Entry("the standard library's testing", "testing", true),
		Entry("not a production package", "keygate/adapters/postgres", false),
		Entry("not a third-party package whose name ends so", "example.com/latest", false),
	)
})
