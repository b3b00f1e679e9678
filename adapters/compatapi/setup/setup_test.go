package setup_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/compatapi/setup"
)

var _ = Describe("Coding agent settings", func() {
	It("points Claude Code at the origin with the token and the model", func() {
		out := setup.ClaudeCode("http://127.0.0.1:7878", "kg_abc", "Fake Claude")
		Expect(out).To(ContainSubstring("export ANTHROPIC_BASE_URL=http://127.0.0.1:7878\n"))
		Expect(out).To(ContainSubstring("export ANTHROPIC_API_KEY=kg_abc\n"))
		Expect(out).To(ContainSubstring("export ANTHROPIC_MODEL='Fake Claude'\n"))
	})

	It("writes Codex's provider table on the /v1 base with the Responses wire API", func() {
		Expect(setup.Codex("http://127.0.0.1:7878", "gpt-5")).To(Equal(`model = "gpt-5"
model_provider = "keygate"

[model_providers.keygate]
name = "Keygate"
base_url = "http://127.0.0.1:7878/v1"
env_key = "KEYGATE_API_KEY"
wire_api = "responses"
`))
	})

	It("merges into an existing config.toml, keeping the rest and replacing its own keys and table", func() {
		existing := `# my settings
model = "o3"
approval_policy = "never"

[model_providers.keygate]
name = "old"
base_url = "http://old/v1"

[profiles.work]
model = "o4"
`
		out := setup.MergeCodex(existing, "https://kg.example.com", "Fake Codex")
		Expect(out).To(Equal(`# my settings
model = "Fake Codex"
approval_policy = "never"
model_provider = "keygate"

[profiles.work]
model = "o4"

[model_providers.keygate]
name = "Keygate"
base_url = "https://kg.example.com/v1"
env_key = "KEYGATE_API_KEY"
wire_api = "responses"
`))
		Expect(setup.MergeCodex(out, "https://kg.example.com", "Fake Codex")).To(Equal(out), "merging again changes nothing")
	})

	It("writes a whole file when there is none", func() {
		Expect(setup.MergeCodex("", "http://h", "m")).To(Equal(setup.Codex("http://h", "m")))
	})
})
