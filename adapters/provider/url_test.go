package provider_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider"
	"keygate/domain/llm"
)

var _ = Describe("RequestURL", func() {
	DescribeTable("derives the request URL from the configured base",
		func(base string, full bool, kind llm.ProviderKind, want string) {
			got, err := provider.RequestURL(base, full, kind)
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(want))
		},
		Entry("a bare host gets the standard Chat path", "https://api.openai.com", false, llm.ProviderOpenAIChat, "https://api.openai.com/v1/chat/completions"),
		Entry("a base ending in /v1 drops the path's /v1", "https://api.openai.com/v1", false, llm.ProviderOpenAIResponses, "https://api.openai.com/v1/responses"),
		Entry("a /v4 base (GLM) keeps its version", "https://open.bigmodel.cn/api/paas/v4/", false, llm.ProviderOpenAIChat, "https://open.bigmodel.cn/api/paas/v4/chat/completions"),
		Entry("a coding-plan subpath is appended to", "https://api.kimi.com/coding", false, llm.ProviderAnthropic, "https://api.kimi.com/coding/v1/messages"),
		Entry("a full URL keeps its api-version query verbatim", "https://acme.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21", true, llm.ProviderOpenAIChat, "https://acme.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21"),
		Entry("the protocol is never inferred from a full URL's path", "https://gw.example.com/v1/messages", true, llm.ProviderOpenAIChat, "https://gw.example.com/v1/messages"),
	)

	DescribeTable("rejects bases that are not http(s) URLs with a host",
		func(base string) {
			_, err := provider.RequestURL(base, false, llm.ProviderOpenAIChat)
			Expect(err).To(MatchError(provider.ErrBadBaseURL))
		},
		Entry("no scheme", "api.openai.com/v1"),
		Entry("another scheme", "ftp://api.openai.com"),
		Entry("a fragment", "https://api.openai.com/v1#x"),
	)
})
