package main_test

import (
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gexec"
)

// commandLine is one line of keygate --help's command list.
var commandLine = regexp.MustCompile(`(?m)^  ([a-z][a-z ]*?[a-z])  +\S`)

// listed are the commands keygate --help lists, by path.
func listed() []string {
	GinkgoHelper()
	s := quietly("--help")
	Expect(s).To(gexec.Exit(0))
	_, list, found := strings.Cut(string(s.Out.Contents()), "Commands:\n")
	Expect(found).To(BeTrue())
	list, _, _ = strings.Cut(list, "\n\n")
	var out []string
	for _, m := range commandLine.FindAllStringSubmatch(list, -1) {
		out = append(out, m[1])
	}
	return out
}

var _ = Describe("keygate's command line", func() {
	It("lists every command with one line in keygate --help", func() {
		Expect(listed()).To(ContainElements("serve", "doctor", "version", "cursor setup", "ca init", "ca export", "ca adopt",
			"secret rotate", "secret adopt", "budgets import", "completion bash", "completion zsh", "completion fish"))
	})

	It("imports a budgets file into the configured database, the file first, and says so", func() {
		dir := GinkgoT().TempDir()
		s := quietly("budgets", "import", "../../deploy/budgets.example.json", "--data-dir", dir)
		Expect(s).To(gexec.Exit(0))
		Expect(string(s.Out.Contents())).To(ContainSubstring("Imported the limits of 2 scopes (the default and 1 users)"))
		s = quietly("budgets", "import", "--data-dir", dir)
		Expect(s).To(gexec.Exit(2))
		Expect(string(s.Err.Contents())).To(ContainSubstring("takes the budget policy file first"))
		Expect(quietly("budgets", "import", "missing.json", "--data-dir", dir)).To(gexec.Exit(1))
	})

	It("has --help with an example for every command it lists", func() {
		for _, path := range append(listed(), "help") {
			s := quietly(append(strings.Fields(path), "--help")...)
			Expect(s).To(gexec.Exit(0), path)
			out := string(s.Out.Contents())
			Expect(out).To(ContainSubstring("Usage:\n  keygate "+path), path)
			_, examples, found := strings.Cut(out, "Examples:\n")
			Expect(found).To(BeTrue(), "%s --help has examples", path)
			Expect(examples).To(MatchRegexp(`^\s+\S`), path)
		}
		Expect(quietly("help", "ca", "init").Out.Contents()).To(ContainSubstring("Usage:\n  keygate ca init"))
	})

	It("prints shell completion scripts, and completes commands and serve's flags", func() {
		for shell, marker := range map[string]string{"bash": "__start_keygate", "zsh": "#compdef keygate", "fish": "complete -c keygate"} {
			s := quietly("completion", shell)
			Expect(s).To(gexec.Exit(0), shell)
			Expect(string(s.Out.Contents())).To(ContainSubstring(marker), shell)
		}
		s := quietly("__complete", "ca", "")
		Expect(string(s.Out.Contents())).To(And(ContainSubstring("init\t"), ContainSubstring("export\t"), ContainSubstring("adopt\t")))
		s = quietly("__complete", "serve", "--proxy-l")
		Expect(string(s.Out.Contents())).To(ContainSubstring("--proxy-listen\t"))
		s = quietly("__complete", "doctor", "--cursor")
		Expect(string(s.Out.Contents())).To(ContainSubstring("--cursor-settings\t"))
	})

	It("exits 2 on an unknown command and says where the commands are listed", func() {
		s := quietly("serv")
		Expect(s).To(gexec.Exit(2))
		Expect(string(s.Err.Contents())).To(And(ContainSubstring(`unknown command "serv"`), ContainSubstring("keygate --help")))
		s = quietly("ca", "create")
		Expect(s).To(gexec.Exit(2))
		Expect(string(s.Err.Contents())).To(ContainSubstring(`unknown command "create" for "keygate ca"`))
	})

	It("exits 2 on a flag a command does not have, naming it", func() {
		s := quietly("ca", "export", "--nope")
		Expect(s).To(gexec.Exit(2))
		Expect(string(s.Err.Contents())).To(And(ContainSubstring("-nope"), ContainSubstring("keygate ca export --help")))
	})
})
