package compat

import (
	"net/url"
	"strings"
)

// Quirks are the deviations of a compatible endpoint from the vendor whose
// protocol it speaks, derived from the upstream model id and the request URL.
// The zero value is the reference vendor itself.
type Quirks struct {
	// DeepSeek must receive reasoning_content on every assistant turn that
	// thought or called tools, even when the turn came from another protocol;
	// its Anthropic-format gateway wants a thinking block on every assistant
	// turn when thinking is on.
	DeepSeek bool
	// Kimi drops thinking-only assistant turns (Moonshot treats them as
	// placeholders), normalises a null or missing "required" in tool schemas
	// to [] and retries its sporadic gateway 400.
	Kimi bool
	// Disable says how to turn thinking off when the request asks for none.
	Disable DisableStyle
	// NoCacheKey omits prompt_cache_key (GitHub Copilot and Gemini's
	// OpenAI-compatible endpoint reject it: "Unknown name").
	NoCacheKey bool
	// Azure authenticates with an api-key header instead of a bearer token;
	// its deployment URL and api-version query are used verbatim.
	Azure bool
	// GeminiOpenAI is Gemini's OpenAI-compatible endpoint: tool calls carry
	// extra_content (Gemini 3's thought signatures), which must go back on
	// the assistant turn's calls or the next request fails with a 400.
	// Other servers never get the field.
	GeminiOpenAI bool
}

// DisableStyle is a vendor's switch for turning thinking off.
type DisableStyle uint8

// Ways to disable thinking.
const (
	// DisableNone sends nothing: the model's default applies.
	DisableNone DisableStyle = iota
	// DisableThinkingType sends thinking:{type:"disabled"} and drops
	// reasoning_effort (DeepSeek, GLM on Zhipu's own hosts, MiniMax).
	DisableThinkingType
	// DisableEnableThinking sends enable_thinking:false (Qwen/DashScope,
	// SiliconFlow).
	DisableEnableThinking
	// DisableReasoningNone sends reasoning:{effort:"none"} (OpenRouter).
	DisableReasoningNone
)

// Detect derives the quirks of an endpoint from the upstream model id and
// the request URL.
func Detect(model, rawURL string) Quirks {
	m := strings.ToLower(model)
	host := ""
	if u, err := url.Parse(rawURL); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	var q Quirks
	switch {
	case hostIs(host, "openrouter.ai"):
		q.Disable = DisableReasoningNone
	case strings.Contains(m, "deepseek") || hostIs(host, "deepseek.com"):
		q.Disable = DisableThinkingType
	case hostIs(host, "bigmodel.cn") || hostIs(host, "z.ai"):
		// GLM only on Zhipu's own hosts: relays reject the thinking field.
		q.Disable = DisableThinkingType
	case strings.Contains(m, "minimax") || hostIs(host, "minimaxi.com") || hostIs(host, "minimax.io"):
		q.Disable = DisableThinkingType
	case strings.HasPrefix(m, "qwen") || strings.Contains(m, "/qwen") || hostIs(host, "aliyuncs.com") || hostIs(host, "siliconflow.cn"):
		q.Disable = DisableEnableThinking
	}
	q.DeepSeek = strings.Contains(m, "deepseek")
	q.Kimi = strings.Contains(m, "kimi") || strings.Contains(m, "moonshot") ||
		hostIs(host, "moonshot.cn") || hostIs(host, "moonshot.ai")
	q.GeminiOpenAI = hostIs(host, "generativelanguage.googleapis.com")
	q.NoCacheKey = hostIs(host, "githubcopilot.com") || q.GeminiOpenAI
	q.Azure = hostIs(host, "openai.azure.com") || hostIs(host, "cognitiveservices.azure.com") ||
		hostIs(host, "services.ai.azure.com")
	return q
}

// hostIs reports whether host is domain or a subdomain of it.
func hostIs(host, domain string) bool {
	return host == domain || strings.HasSuffix(host, "."+domain)
}

// KimiRetryable reports whether a 400 body is Moonshot's sporadic gateway
// failure, which succeeds when retried.
func KimiRetryable(body string) bool {
	return strings.Contains(body, "Invalid request for the selected model")
}
