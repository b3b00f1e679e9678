package compat_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/compat"
)

var _ = Describe("Compatible endpoints", func() {
	DescribeTable("Detect recognises endpoints by host and model",
		func(model, url string, want compat.Quirks) {
			Expect(compat.Detect(model, url)).To(Equal(want))
		},
		Entry("Azure OpenAI authenticates with api-key", "gpt-4o", "https://acme.openai.azure.com/openai/deployments/gpt4o/chat/completions?api-version=2024-10-21", compat.Quirks{Azure: true}),
		Entry("GitHub Copilot takes no cache key", "gpt-4.1", "https://api.githubcopilot.com/chat/completions", compat.Quirks{NoCacheKey: true}),
		Entry("Moonshot's host marks Kimi", "moonshot-v1-8k", "https://api.moonshot.ai/v1", compat.Quirks{Kimi: true}),
		Entry("Gemini's OpenAI-compatible endpoint replays extra_content and takes no cache key", "gemini-3-flash-preview", "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions", compat.Quirks{GeminiOpenAI: true, NoCacheKey: true}),
		Entry("plain OpenAI has no quirks", "gpt-5.1", "https://api.openai.com/v1/responses", compat.Quirks{}),
	)

	It("treats Kimi's gateway 400 as retryable", func() {
		Expect(compat.KimiRetryable(`{"error":{"message":"Invalid request for the selected model"}}`)).To(BeTrue())
		Expect(compat.KimiRetryable(`{"error":{"message":"Invalid tool schema"}}`)).To(BeFalse())
	})
})
