package unary_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/picker"
	"keygate/adapters/cursor/unary"
	"keygate/ports"
)

// published is a ModelSource with a fixed answer.
type published struct {
	cfgs []ports.ModelConfig
	err  error
}

func (p published) Published(context.Context) ([]ports.ModelConfig, error) { return p.cfgs, p.err }

var _ = Describe("The catalog of configured models", func() {
	It("shows each model in the picker as configured, labelled with its provider's host, with its parameters", func() {
		cfgs := []ports.ModelConfig{
			{ID: "m1", DisplayName: "GPT Local", BaseURL: "http://127.0.0.1:11434/v1", Tooltip: "On the laptop", ReasoningEffort: "high", SupportsImages: true},
			{ID: "m2", DisplayName: "Claude", BaseURL: "https://api.anthropic.com"},
			{ID: "m3", DisplayName: "Odd", BaseURL: "://no scheme"},
		}
		models, err := unary.Configured(published{cfgs: cfgs}).Models(context.Background(), nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(models).To(Equal([]unary.Model{
			{ID: "m1", DisplayName: "GPT Local", Badge: "127.0.0.1", Description: "On the laptop", Thinking: true, Images: true, Picker: picker.For(cfgs[0])},
			{ID: "m2", DisplayName: "Claude", Badge: "api.anthropic.com", Picker: picker.For(cfgs[1])},
			{ID: "m3", DisplayName: "Odd", Picker: picker.For(cfgs[2])},
		}))
	})

	It("reports a source that cannot list its models", func() {
		_, err := unary.Configured(published{err: errors.New("disk gone")}).Models(context.Background(), nil)
		Expect(err).To(MatchError(ContainSubstring("disk gone")))
	})
})
