package conversation_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/conversation"
	"keygate/domain/llm"
)

var _ = DescribeTable("Title",
	func(text, want string) {
		m, err := conversation.NewText("u", llm.RoleUser, conversation.OriginRuntime, text)
		Expect(err).NotTo(HaveOccurred())
		Expect(conversation.Title(m)).To(Equal(want))
	},
	Entry("keeps a plain question on one line", "Why does\n  the build\tfail?", "Why does the build fail?"),
	Entry("drops a tag that wraps the whole query", "<user_query>\nhello\n</user_query>", "hello"),
	Entry("keeps tags inside the text", "explain <div> in <b>HTML</b>", "explain <div> in <b>HTML</b>"),
	Entry("keeps an unclosed tag", "<user_query> hello", "<user_query> hello"),
	Entry("cuts a long text with an ellipsis", strings.Repeat("a", 200), strings.Repeat("a", conversation.MaxTitle-1)+"…"),
)
