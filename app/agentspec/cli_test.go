package agentspec_test

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
)

var _ = Describe("cursor-agent (the CLI) on Keygate's models, through the proxy", func() {
	It("lists Keygate's models with their parameters, picks one and runs a turn on it", func() {
		k := startKeygate(newWeb(), nil)
		cli := cursortest.NewCLI(cursorAPI, k.cursorHTTP())
		models, err := cli.Models(context.Background())
		Expect(err).NotTo(HaveOccurred(), "every route the CLI asks before a run is answered")

		ids := []string{}
		for _, m := range models.Usable {
			ids = append(ids, m.GetModelId())
		}
		for _, kind := range kinds {
			Expect(ids).To(ContainElement(k.models[kind]))
			entry, ok := models.Available[k.models[kind]]
			Expect(ok).To(BeTrue(), "AvailableModels lists %s", kind)
			Expect(entry.GetParameterDefinitions()).NotTo(BeEmpty(), "with the parameters its family offers")
		}
		Expect(models.Default.GetModelId()).To(Equal(k.models[kinds[0]]), "the default is Keygate's first model")
		Expect(models.Default.GetApiKeyCredentials().GetApiKey()).NotTo(HavePrefix("sk-"), "no provider key reaches the client")

		t := k.turn(kinds[0], userMessage("conv-cli-1", "Hello from the terminal.", nil), nil,
			providertest.Turn{Text: []string{"Hi."}})
		Expect(t.requests).To(HaveLen(1))
		Expect(string(t.requests[0].Body)).To(ContainSubstring("Hello from the terminal."))
		Expect(kinds[0]).To(Equal(llm.ProviderOpenAIChat))
	})
})
