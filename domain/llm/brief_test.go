package llm_test

import (
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/llm"
)

var _ = Describe("llm.BriefText", func() {
	DescribeTable("keeps only what is fit to show an administrator",
		func(in string, secrets []string, want string) {
			Expect(llm.BriefText(in, secrets...)).To(Equal(want))
		},
		Entry("plain words pass", "model not found", nil, "model not found"),
		Entry("line breaks and tabs become one space", "bad\r\n\trequest", nil, "bad request"),
		Entry("control and formatting characters go", "a\x00b\x07c\u200bd\u202ee", nil, "abcde"),
		Entry("terminal escapes go whole", "\x1b[31mred\x1b[0m", nil, "red"),
		Entry("a given secret is redacted", "you sent my-secret-key here", []string{"my-secret-key"}, "you sent [redacted] here"),
		Entry("a secret split by an invisible character is still redacted", "my-sec\u200bret-key", []string{"my-secret-key"}, "[redacted]"),
		Entry("short secrets are not searched (they would redact words)", "a ab abc", []string{"abc"}, "a ab abc"),
		Entry("a bearer token is redacted", "Authorization: Bearer abc.def-123", nil, "Authorization: [redacted]"),
		Entry("a vendor key is redacted", "key sk-proj-ABCdef123456 and AIzaSyA1234567890", nil, "key [redacted] and [redacted]"),
		Entry("a long token is redacted", "token "+strings.Repeat("a1", 25), nil, "token [redacted]"),
		Entry("model ids stay", "unknown model claude-3-5-sonnet-20241022", nil, "unknown model claude-3-5-sonnet-20241022"),
		Entry("invalid UTF-8 goes", "a\xffb", nil, "ab"),
	)

	It("cuts long text to MaxBrief characters", func() {
		out := llm.BriefText(strings.Repeat("é ", 1000))
		Expect(utf8.RuneCountInString(out)).To(Equal(llm.MaxBrief + 1))
		Expect(out).To(HaveSuffix("…"))
	})
})

var _ = DescribeTable("llm.ErrorReason",
	func(body, want string) { Expect(llm.ErrorReason(body)).To(Equal(want)) },
	Entry("OpenAI", `{"error":{"message":"Incorrect API key","type":"invalid_request_error"}}`, "Incorrect API key"),
	Entry("Anthropic", `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, "invalid x-api-key"),
	Entry("a bare error string", `{"error":"not allowed"}`, "not allowed"),
	Entry("a top-level message", `{"message":"Forbidden"}`, "Forbidden"),
	Entry("a detail", `{"detail":"Not Found"}`, "Not Found"),
	Entry("a body cut short", `{"error":{"message":"quota \"x\" exceeded","type":"ins…`, `quota "x" exceeded`),
	Entry("text", "<html>Bad Gateway</html>", "<html>Bad Gateway</html>"),
)

var _ = Describe("llm.ProviderError.Brief", func() {
	It("gives the status and the reason of a JSON body", func() {
		e := &llm.ProviderError{Status: 403, Message: `OpenAI Chat 403: {"error":{"message":"no access\nfor sk-abcdefgh1234"}}`}
		Expect(e.Brief()).To(Equal("HTTP 403: OpenAI Chat 403: no access for [redacted]"))
	})
})
