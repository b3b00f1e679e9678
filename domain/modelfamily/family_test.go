package modelfamily_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/modelfamily"
)

var _ = Describe("Lookup", func() {
	DescribeTable("finds a model's family by the longest matching prefix, however a gateway or a cloud names it",
		func(id, prefix string, window int64) {
			f, ok := modelfamily.Lookup(id)
			Expect(ok).To(BeTrue(), id)
			Expect(f.Prefix).To(Equal(prefix))
			Expect(f.Window).To(Equal(window))
		},
		Entry("GPT-5.5", "gpt-5.5", "gpt-5.5", int64(272_000)),
		Entry("a dated GPT-5.4 snapshot", "gpt-5.4-2026-03-05", "gpt-5.4", int64(272_000)),
		Entry("GPT-5.4 mini, not GPT-5.4", "gpt-5.4-mini", "gpt-5.4-mini", int64(400_000)),
		Entry("GPT-5 mini", "gpt-5-mini", "gpt-5", int64(400_000)),
		Entry("a GPT-5.x the table does not list", "gpt-5.7", "gpt-5.", int64(272_000)),
		Entry("through a gateway's vendor path", "openai/gpt-5.5", "gpt-5.5", int64(272_000)),
		Entry("Claude with a dotted version", "claude-opus-4.6", "claude-opus-4-6", int64(200_000)),
		Entry("Claude on a cloud, with region and vendor", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4", int64(200_000)),
		Entry("Claude Opus 5.5", "claude-opus-5-5", "claude-opus-5", int64(200_000)),
		Entry("upper case", "GPT-4o", "gpt-4o", int64(128_000)),
	)

	It("knows nothing of a model it does not list", func() {
		for _, id := range []string{"llama3.1:8b", "qwen3-coder", "my-finetune", ""} {
			_, ok := modelfamily.Lookup(id)
			Expect(ok).To(BeFalse(), id)
		}
	})

	It("names a source for every entry and keeps its numbers consistent", func() {
		levels := []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}
		seen := map[string]bool{}
		for _, f := range modelfamily.Table() {
			Expect(seen).NotTo(HaveKey(f.Prefix), "listed once")
			seen[f.Prefix] = true
			Expect(f.Prefix).To(Equal(strings.ToLower(f.Prefix)))
			Expect(f.Source).To(HavePrefix("https://"), f.Prefix)
			Expect(f.Window).To(BeNumerically(">=", 100_000), f.Prefix)
			if f.LongWindow != 0 {
				Expect(f.LongWindow).To(BeNumerically(">", f.Window), f.Prefix)
			}
			for _, e := range f.Efforts {
				Expect(levels).To(ContainElement(e), f.Prefix)
			}
			if f.Fast {
				Expect(f.Vendor).NotTo(BeEmpty(), "%s: fast processing is a vendor API's feature", f.Prefix)
			}
		}
	})
})
