package gemini_test

import (
	"context"
	"net/http"
	"net/url"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/compat"
	"keygate/adapters/provider/gemini"
	"keygate/domain/llm"
)

var _ = Describe("The Gemini protocol", func() {
	It("puts the key in x-goog-api-key, never in the URL", func() {
		p := gemini.API()
		h := http.Header{}
		p.Auth(h, "AIza-secret", compat.Quirks{})
		Expect(h).To(Equal(http.Header{"X-Goog-Api-Key": {"AIza-secret"}}))
		base, err := url.Parse(gemini.DefaultBase)
		Expect(err).NotTo(HaveOccurred())
		u := p.URL(*base, "models/gemini-2.5-flash")
		Expect(u.String()).To(Equal("https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"))
		Expect(u.String()).NotTo(ContainSubstring("AIza"))
	})

	Describe("model listing", func() {
		type page struct {
			Models []struct {
				Name    string   `json:"name"`
				Methods []string `json:"supportedGenerationMethods"`
			} `json:"models"`
			NextPageToken string `json:"nextPageToken"`
		}
		model := func(name string, methods ...string) struct {
			Name    string   `json:"name"`
			Methods []string `json:"supportedGenerationMethods"`
		} {
			return struct {
				Name    string   `json:"name"`
				Methods []string `json:"supportedGenerationMethods"`
			}{name, methods}
		}
		pages := map[string]page{
			"": {Models: append([]struct {
				Name    string   `json:"name"`
				Methods []string `json:"supportedGenerationMethods"`
			}{}, model("models/gemini-2.5-flash", "generateContent", "countTokens"), model("models/text-embedding-004", "embedContent")), NextPageToken: "p2"},
			"p2": {Models: append([]struct {
				Name    string   `json:"name"`
				Methods []string `json:"supportedGenerationMethods"`
			}{}, model("models/gemini-3-pro-preview", "generateContent"))},
		}

		DescribeTable("reads every page at {base}/v1beta/models, keeping the generateContent models without their prefix",
			func(candidate, want string) {
				var asked []string
				get := func(_ context.Context, u string, into any) error {
					asked = append(asked, u)
					parsed, err := url.Parse(u)
					Expect(err).NotTo(HaveOccurred())
					*(into.(*struct {
						Models []struct {
							Name    string   `json:"name"`
							Methods []string `json:"supportedGenerationMethods"`
						} `json:"models"`
						NextPageToken string `json:"nextPageToken"`
					})) = pages[parsed.Query().Get("pageToken")]
					return nil
				}
				ids, err := gemini.API().Models.List(context.Background(), candidate, get)
				Expect(err).NotTo(HaveOccurred())
				Expect(ids).To(Equal([]string{"gemini-2.5-flash", "gemini-3-pro-preview"}))
				Expect(asked).To(Equal([]string{want + "?pageSize=1000", want + "?pageSize=1000&pageToken=p2"}))
			},
			Entry("Google's base (discovery asks /v1/models)", "https://generativelanguage.googleapis.com/v1/models", "https://generativelanguage.googleapis.com/v1beta/models"),
			Entry("a base ending in /v1beta", "https://gw.example.com/v1beta/v1/models", "https://gw.example.com/v1beta/models"),
			Entry("a gateway path", "https://gw.example.com/gemini/models", "https://gw.example.com/gemini/v1beta/models"),
		)
	})

	It("names its kind gemini and leaves Vendor empty (domain/modelfamily names no Google vendor)", func() {
		p := gemini.API()
		Expect(p.Kind).To(Equal(llm.ProviderGemini))
		Expect(p.Vendor).To(BeEmpty())
		Expect(p.Check()).To(Succeed())
	})
})
