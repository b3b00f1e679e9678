package picker_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/picker"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/ports"
)

// summary is a definition list as id: values.
func summary(defs []*aiserverv1.ModelParameterDefinition) map[string][]string {
	out := map[string][]string{}
	for _, d := range defs {
		t := d.GetParameterType()
		var vs []string
		for _, v := range t.GetEnumParameter().GetValues() {
			vs = append(vs, v.GetValue())
		}
		for _, v := range t.GetBooleanParameter().GetValues() {
			vs = append(vs, v.GetValue())
		}
		out[d.GetId()] = vs
	}
	return out
}

var (
	gptOnOpenAI    = ports.ModelConfig{ModelID: "gpt-5.5", ProviderKind: llm.ProviderOpenAIResponses, BaseURL: "https://api.openai.com/v1", ReasoningEffort: "medium"}
	opusOnClaude   = ports.ModelConfig{ModelID: "claude-opus-5-5", ProviderKind: llm.ProviderAnthropic, BaseURL: "https://api.anthropic.com"}
	opusViaGateway = ports.ModelConfig{ModelID: "anthropic/claude-opus-5-5", ProviderKind: llm.ProviderOpenAIChat, BaseURL: "https://openrouter.ai/api/v1"}
	localModel     = ports.ModelConfig{ModelID: "qwen3-coder:30b", ProviderKind: llm.ProviderOpenAIChat, BaseURL: "http://localhost:11434/v1"}
)

var _ = Describe("The parameters a model offers", func() {
	DescribeTable("are what its provider's API supports",
		func(cfg ports.ModelConfig, want map[string][]string, window, long int64) {
			o := picker.For(cfg)
			Expect(summary(o.Definitions())).To(Equal(want))
			Expect(o.Window).To(Equal(window))
			Expect(o.LongWindow).To(Equal(long))
		},
		Entry("GPT-5.5 on OpenAI: its five effort levels, priority processing, 272K or the whole 1.05M", gptOnOpenAI,
			map[string][]string{"reasoning": {"none", "low", "medium", "high", "xhigh"}, "fast": {"false", "true"}, "context": {"272k", "1.05m"}},
			int64(272_000), int64(1_050_000)),
		Entry("Claude Opus 5.5 on Anthropic, no effort configured: the provider's default first, fast mode, 200K or 1M", opusOnClaude,
			map[string][]string{"reasoning": {"default", "low", "medium", "high", "xhigh", "max"}, "fast": {"false", "true"}, "context": {"200k", "1m"}},
			int64(200_000), int64(1_000_000)),
		Entry("the same model through a gateway: the levels every API accepts, no fast tier", opusViaGateway,
			map[string][]string{"reasoning": {"default", "low", "medium", "high"}, "context": {"200k", "1m"}},
			int64(200_000), int64(1_000_000)),
		Entry("GPT-5.5 on a compatible server: no fast tier there", ports.ModelConfig{ModelID: "gpt-5.5", ProviderKind: llm.ProviderOpenAIChat, BaseURL: "http://litellm:4000"},
			map[string][]string{"reasoning": {"default", "none", "low", "medium", "high", "xhigh"}, "context": {"272k", "1.05m"}},
			int64(272_000), int64(1_050_000)),
		Entry("an unknown local model: nothing to choose, no window to compact at", localModel,
			map[string][]string{}, int64(0), int64(0)),
		Entry("an unknown model with a configured effort and window: the common levels, that window", func() ports.ModelConfig {
			c := localModel
			c.ReasoningEffort, c.ContextWindowTokens = "xhigh", 64_000
			return c
		}(), map[string][]string{"reasoning": {"low", "medium", "high", "xhigh"}}, int64(64_000), int64(0)),
	)

	It("come as the client's schema defines them: an enum with display names, a boolean, the cost flags", func() {
		defs := picker.For(gptOnOpenAI).Definitions()
		Expect(defs).To(HaveLen(3))
		r := defs[0]
		Expect(r.GetName()).To(Equal("Reasoning"))
		Expect(r.GetIsCycleableByHotkey()).To(BeTrue())
		Expect(r.GetParameterType().GetEnumParameter().GetValues()[4].GetDisplayName()).To(Equal("Extra high"))
		Expect(r.GetParameterType().GetEnumParameter().GetValues()[4].GetIncreasesModelCost()).To(BeTrue())
		fast := defs[1].GetParameterType().GetBooleanParameter().GetValues()
		Expect(fast[1].GetValue()).To(Equal("true"))
		Expect(fast[1].GetIncreasesModelCost()).To(BeTrue())
		Expect(defs[2].GetParameterType().GetEnumParameter().GetValues()[1].GetDisplayName()).To(Equal("1.05M"))
	})

	DescribeTable("come as variants that each carry every parameter, with one default and one Max mode variant, every value accepted back",
		func(cfg ports.ModelConfig) {
			o := picker.For(cfg)
			defs := summary(o.Definitions())
			variants := o.Variants("Model")
			Expect(variants).NotTo(BeEmpty())
			defaults, maxes := 0, 0
			for _, v := range variants {
				Expect(v.GetParameterValues()).To(HaveLen(len(defs)), v.GetDisplayName())
				rm := &agentv1.RequestedModel{MaxMode: v.GetIsMaxMode()}
				for _, pv := range v.GetParameterValues() {
					Expect(defs[pv.GetId()]).To(ContainElement(pv.GetValue()), "%s: %s=%s", v.GetDisplayName(), pv.GetId(), pv.GetValue())
					rm.Parameters = append(rm.Parameters, &agentv1.RequestedModel_ModelParameterValue{Id: pv.GetId(), Value: pv.GetValue()})
				}
				c := o.Choose(rm)
				for _, pv := range v.GetParameterValues() {
					switch pv.GetId() {
					case picker.ParamReasoning:
						want := pv.GetValue()
						if want == picker.ProviderDefault {
							want = ""
						}
						Expect(c.Effort).To(Equal(want))
					case picker.ParamFast:
						Expect(c.Fast).To(Equal(pv.GetValue() == "true"))
					case picker.ParamContext:
						Expect(c.Window).To(Equal(picker.ParseTokens(pv.GetValue())))
					}
				}
				if v.GetIsDefaultNonMaxConfig() {
					defaults++
				}
				if v.GetIsMaxMode() {
					maxes++
					Expect(c.Window).To(Equal(o.LongWindow))
				}
			}
			Expect(defaults).To(Equal(1))
			Expect(maxes).To(Equal(1))
		},
		Entry("GPT-5.5 on OpenAI", gptOnOpenAI),
		Entry("Claude Opus 5.5 on Anthropic", opusOnClaude),
		Entry("Claude through a gateway", opusViaGateway),
	)

	It("are none at all for a model without choices", func() {
		Expect(picker.For(localModel).Definitions()).To(BeEmpty())
		Expect(picker.For(localModel).Variants("Local")).To(BeEmpty())
	})
})

var _ = Describe("Token sizes", func() {
	It("read and write the picker's spelling", func() {
		for n, s := range map[int64]string{272_000: "272k", 1_000_000: "1m", 1_050_000: "1.05m", 200_000: "200k", 1_048_576: "1048576"} {
			Expect(picker.FormatTokens(n)).To(Equal(s))
			Expect(picker.ParseTokens(s)).To(Equal(n))
		}
		Expect(picker.ParseTokens("lots")).To(BeZero())
		Expect(picker.ParseTokens("-1k")).To(BeZero())
	})
})
