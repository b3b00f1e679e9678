package gitmsg_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/gitmsg"
)

var _ = Describe("the commit-message prompt", func() {
	diff := "diff --git a/a.go b/a.go\n+x\n"

	It("shows the recent messages as the style to follow, newest first, and the diff", func() {
		p, err := gitmsg.NewCommitPrompt(gitmsg.CommitInput{Diffs: []string{diff},
			Recent: []string{"fix(api): handle nil", "feat(ui): add card", ""}}, gitmsg.Budget{})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.System).To(ContainSubstring("in the style of the recent messages"))
		Expect(p.User).To(Equal("<recent_commits>\n<commit>\nfix(api): handle nil\n</commit>\n<commit>\nfeat(ui): add card\n</commit>\n</recent_commits>\n<diff>\n" + diff + "</diff>\n"))
	})

	It("shows the newest messages within the count", func() {
		p, err := gitmsg.NewCommitPrompt(gitmsg.CommitInput{Diffs: []string{diff}, Recent: []string{"new", "mid", "old"}}, gitmsg.Budget{Recent: 2})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.User).To(ContainSubstring("new"))
		Expect(p.User).NotTo(ContainSubstring("old"))
	})

	It("gives every file a share of the diff budget and says what is cut", func() {
		big := "diff --git a/big b/big\n" + strings.Repeat("+line\n", 200)
		small := "diff --git a/small b/small\n+s\n"
		p, err := gitmsg.NewCommitPrompt(gitmsg.CommitInput{Diffs: []string{big, small}}, gitmsg.Budget{DiffBytes: 200})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.User).To(ContainSubstring(strings.TrimSuffix(small, "\n")))
		Expect(p.User).To(ContainSubstring("more bytes of this diff not shown"))
		Expect(len(p.User)).To(BeNumerically("<", 400))
	})

	It("refuses an empty diff", func() {
		_, err := gitmsg.NewCommitPrompt(gitmsg.CommitInput{Diffs: []string{"", "\n"}}, gitmsg.Budget{})
		Expect(err).To(MatchError(gitmsg.ErrNoDiff))
	})
})

var _ = Describe("the branch-name prompt", func() {
	It("shows what the user said and the diff", func() {
		p, err := gitmsg.NewBranchPrompt(gitmsg.BranchInput{Diff: "+x", Context: "add login"}, gitmsg.Budget{})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.System).To(ContainSubstring("lowercase words joined by hyphens"))
		Expect(p.User).To(Equal("<context>\nadd login\n</context>\n<diff>\n+x\n</diff>\n"))
		_, err = gitmsg.NewBranchPrompt(gitmsg.BranchInput{}, gitmsg.Budget{})
		Expect(err).To(MatchError(gitmsg.ErrNoDiff))
	})
})

var _ = DescribeTable("a commit message from a reply",
	func(reply, want string) { Expect(gitmsg.CommitMessage(reply)).To(Equal(want)) },
	Entry("as is", "fix(api): handle nil body\n", "fix(api): handle nil body"),
	Entry("fenced", "```\nfeat: add card\n\nBody line.  \n```", "feat: add card\n\nBody line."),
	Entry("labelled and quoted", "Commit message: \"docs: fix typo\"", "docs: fix typo"),
	Entry("surplus blank lines", "subject\n\n\n\nbody\n\n", "subject\n\nbody"),
	Entry("nothing", "  \n", ""),
)

var _ = DescribeTable("a branch name from a reply",
	func(reply, want string) { Expect(gitmsg.BranchName(reply)).To(Equal(want)) },
	Entry("as is", "feat/add-login", "feat/add-login"),
	Entry("words and case", "Fix: Handle Nil Body", "fix-handle-nil-body"),
	Entry("quoted, labelled, first line", "Branch name: `feat/user-avatars`\nThis branch…", "feat/user-avatars"),
	Entry("what git refuses", "feat//a..b~c^d:e?f*g[h]\\i@{j}.lock", "feat/a.b-c-d-e-f-g-h-i-j"),
	Entry("no leading or trailing separators", "-/.name./", "name"),
	Entry("non-ASCII dropped", "añadir-login", "a-adir-login"),
	Entry("bounded", strings.Repeat("abcdefghij", 10), strings.Repeat("abcdefghij", 6)),
	Entry("nothing usable", "```\n```", ""),
)
