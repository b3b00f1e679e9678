package agentsspec_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/compatapi/setup"
	"keygate/adapters/provider/providertest"
)

// usage is what the fake provider reports for each reply: the budget must
// count replies × (input + output) tokens.
var usage = providertest.Usage{Input: 1000, Output: 100}

// notes is the file each client is asked to edit.
const notes = "notes.txt"

// workspace is a scratch working folder holding notes.txt saying hello.
func workspace() string {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	Expect(os.WriteFile(filepath.Join(dir, notes), []byte("hello world\n"), 0o600)).To(Succeed())
	return dir
}

// tokenBudget is a policy whose daily token limit is exactly what replies
// scripted replies use: the client's run fits (each call is checked before
// it is sent), and the next call is refused with the count the budget
// holds.
func tokenBudget(replies int) (string, int64) {
	total := int64(replies) * (usage.Input + usage.Output)
	return `{"default": {"tokensPerDay": ` + jsonInt(total) + `}}`, total
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// expectAccounted asserts what the operator sees after the client's run:
// replies call records of kind api naming client and the caller, and the
// caller's daily token budget holding their tokens.
func expectAccounted(k *keygate, client, model string, replies int) {
	GinkgoHelper()
	calls := k.apiCalls()
	Expect(calls).To(HaveLen(replies), "one call record per model call")
	for _, c := range calls {
		Expect(c.Client).To(Equal(client))
		Expect(c.UserID).To(Equal(k.user))
		Expect(c.Status).To(Equal("CALL_STATUS_COMPLETED"))
	}
	_, total := tokenBudget(replies)
	status, raw := k.budgetRefusal(model)
	Expect(status).To(Equal(http.StatusTooManyRequests), raw)
	Expect(raw).To(ContainSubstring("you used %d of your %d tokens for today", total, total),
		"the budget counted the provider's usage of every call")
}

var _ = Describe("The real coding agents edit a file through keygate serve", func() {
	for _, company := range []bool{false, true} {
		mode := "in laptop mode"
		if company {
			mode = "in company mode with a member's gateway token"
		}

		It("Claude Code "+AgentVersions["claude-code"]+" reads and edits a file on an Anthropic model "+mode, func() {
			claude := agentBinary("claude-code")
			provider := providertest.NewServer()
			DeferCleanup(provider.Close)
			budgets, _ := tokenBudget(3)
			k := serve(company, provider, budgets)
			k.createModel("Fake Claude", "PROVIDER_KIND_ANTHROPIC", "fake-claude", provider)
			dir := workspace()
			file := filepath.Join(dir, notes)

			provider.Enqueue(
				providertest.Stream(providertest.AnthropicSSE(providertest.Turn{ID: "msg_1", Usage: usage, Calls: []providertest.Call{
					{ID: "toolu_read", Name: "Read", Arguments: []string{`{"file_path":` + quote(file) + `}`}}}})),
				providertest.Stream(providertest.AnthropicSSE(providertest.Turn{ID: "msg_2", Usage: usage, Calls: []providertest.Call{
					{ID: "toolu_edit", Name: "Edit", Arguments: []string{`{"file_path":` + quote(file) +
						`,"old_string":"hello world","new_string":"hello from keygate"}`}}}})),
				providertest.Stream(providertest.AnthropicSSE(providertest.Turn{ID: "msg_3", Usage: usage,
					Text: providertest.Words("I changed the greeting.")})),
			)

			key := k.token
			if key == "" {
				key = "laptop" // laptop mode needs no token; Claude Code wants a key
			}
			stray := newStrayProxy()
			out := run(dir, claude, offline(GinkgoT().TempDir(), stray,
				"ANTHROPIC_BASE_URL="+k.base, "ANTHROPIC_API_KEY="+key,
				"ANTHROPIC_MODEL=Fake Claude", "ANTHROPIC_SMALL_FAST_MODEL=Fake Claude", "ANTHROPIC_DEFAULT_HAIKU_MODEL=Fake Claude",
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1"),
				"-p", "Replace 'hello world' with 'hello from keygate' in "+notes, "--output-format", "json",
				"--model", "Fake Claude", "--permission-mode", "acceptEdits", "--allowedTools", "Read Edit")

			Expect(os.ReadFile(file)).To(BeEquivalentTo("hello from keygate\n"), "the file as Claude Code left it; its output:\n%s", out)
			Expect(out).To(ContainSubstring("I changed the greeting."))
			expectAccounted(k, "claude-code", "Fake Claude", 3)
			Expect(stray.requests()).To(BeEmpty(), "Claude Code called nothing but Keygate")
		})

		It("Codex "+AgentVersions["codex"]+" runs a command that edits a file on an OpenAI Responses model "+mode, func() {
			codex := agentBinary("codex")
			provider := providertest.NewServer()
			DeferCleanup(provider.Close)
			budgets, _ := tokenBudget(2)
			k := serve(company, provider, budgets)
			k.createModel("Fake GPT", "PROVIDER_KIND_OPENAI_RESPONSES", "fake-gpt", provider)
			dir := workspace()

			provider.Enqueue(
				providertest.Stream(providertest.ResponsesSSE(providertest.Turn{ID: "resp_1", Usage: usage, Calls: []providertest.Call{
					{ID: "call_sed", Name: "exec_command", Arguments: []string{`{"cmd":"sed -i 's/hello world/hello from keygate/' ` + notes + `"}`}}}})),
				providertest.Stream(providertest.ResponsesSSE(providertest.Turn{ID: "resp_2", Usage: usage,
					Text: providertest.Words("I changed the greeting.")})),
			)

			home := GinkgoT().TempDir()
			Expect(os.MkdirAll(filepath.Join(home, ".codex"), 0o700)).To(Succeed())
			// Keygate's settings as `keygate setup codex --write` writes them,
			// with the update check, analytics and the features that fetch
			// from GitHub and chatgpt.com at start (plugins, apps) off.
			config := "check_for_update_on_startup = false\n" + setup.Codex(k.base, "Fake GPT") +
				"\n[analytics]\nenabled = false\n\n[features]\nplugins = false\nremote_plugin = false\nplugin_sharing = false\napps = false\n"
			Expect(os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte(config), 0o600)).To(Succeed())
			key := k.token
			if key == "" {
				key = "laptop"
			}
			stray := newStrayProxy()
			out := run(dir, codex, offline(home, stray, setup.TokenEnv+"="+key),
				"exec", "--skip-git-repo-check", "--sandbox", "workspace-write", "-C", dir,
				"Replace 'hello world' with 'hello from keygate' in "+notes)

			Expect(os.ReadFile(filepath.Join(dir, notes))).To(BeEquivalentTo("hello from keygate\n"), "the file as Codex left it; its output:\n%s", out)
			Expect(out).To(ContainSubstring("I changed the greeting."))
			expectAccounted(k, "codex", "Fake GPT", 2)
			Expect(stray.requests()).To(BeEmpty(), "Codex called nothing but Keygate")
		})
	}
})

// quote is s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
