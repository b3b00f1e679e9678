package modelfamily

import (
	"strings"
)

// Family is what the table knows of the models whose id starts with
// Prefix.
type Family struct {
	// Prefix is matched against the normalised model id (Normalize); the
	// longest matching prefix wins.
	Prefix string
	// Window is the context window in tokens to compact at by default:
	// the model's window, or the part of it billed at the standard rate
	// when the vendor charges more beyond it.
	Window int64
	// LongWindow is a larger window a user may choose (0 for none).
	LongWindow int64
	// Efforts are the reasoning effort levels the vendor's API accepts for
	// the family, from least to most; nil when it takes none.
	Efforts []string
	// Fast says the vendor's own API offers faster processing at a higher
	// price for the family: OpenAI's priority tier (service_tier
	// "priority"), Anthropic's fast mode (speed "fast").
	Fast bool
	// Vendor is the API whose features (Fast) the family has: "openai" or
	// "anthropic"; "" for others.
	Vendor string
	// Source is the vendor documentation the numbers come from.
	Source string
}

// Vendors of Family.Vendor.
const (
	VendorOpenAI    = "openai"
	VendorAnthropic = "anthropic"
)

var (
	openAIEfforts       = []string{"none", "low", "medium", "high", "xhigh"}
	openAI51Efforts     = []string{"none", "low", "medium", "high"}
	openAI5Efforts      = []string{"minimal", "low", "medium", "high"}
	baseEfforts         = []string{"low", "medium", "high"}
	anthropicMaxEfforts = []string{"low", "medium", "high", "max"}
	anthropicAllEfforts = []string{"low", "medium", "high", "xhigh", "max"}
)

const (
	openAIModels    = "https://developers.openai.com/api/docs/models"
	openAIPriority  = "https://openai.com/api-priority-processing/"
	anthropicModels = "https://platform.claude.com/docs/en/models"
	anthropicFast   = "https://platform.claude.com/docs/en/build-with-claude/fast-mode"
	anthropicEffort = "https://platform.claude.com/docs/en/build-with-claude/effort"
	deepSeekModels  = "https://api-docs.deepseek.com/quick_start/pricing"
	geminiModels    = "https://ai.google.dev/gemini-api/docs/models"
)

// table lists the known families. A window documented as larger than what
// is billed at the standard rate (GPT-5.4 and later bill prompts over 272K
// input tokens at twice the rate) defaults to the standard part, with the
// whole window as the long option. Anthropic's Claude 4 models reach 1M
// tokens only with a beta header Keygate does not send, so they get 200K.
var table = []Family{
	{Prefix: "gpt-5.5", Window: 272_000, LongWindow: 1_050_000, Efforts: openAIEfforts, Fast: true, Vendor: VendorOpenAI,
		Source: openAIModels + "/gpt-5.5; " + openAIPriority},
	{Prefix: "gpt-5.4", Window: 272_000, LongWindow: 1_050_000, Efforts: openAIEfforts, Fast: true, Vendor: VendorOpenAI,
		Source: openAIModels + "/gpt-5.4; " + openAIPriority},
	{Prefix: "gpt-5.4-mini", Window: 400_000, Efforts: openAIEfforts, Fast: true, Vendor: VendorOpenAI,
		Source: openAIModels + "/gpt-5.4-mini; " + openAIPriority},
	{Prefix: "gpt-5.4-nano", Window: 400_000, Efforts: openAIEfforts, Vendor: VendorOpenAI,
		Source: openAIModels + "/gpt-5.4-nano"},
	{Prefix: "gpt-5.2", Window: 400_000, Efforts: openAIEfforts, Fast: true, Vendor: VendorOpenAI,
		Source: openAIModels + "/gpt-5.2; " + openAIPriority},
	{Prefix: "gpt-5.1", Window: 400_000, Efforts: openAI51Efforts, Fast: true, Vendor: VendorOpenAI,
		Source: openAIModels + "/gpt-5.1; " + openAIPriority},
	// A later GPT-5.x this table does not know yet: the standard-rate part
	// of the family's window and the effort levels every one accepts.
	{Prefix: "gpt-5.", Window: 272_000, Efforts: baseEfforts, Vendor: VendorOpenAI,
		Source: openAIModels},
	{Prefix: "gpt-5", Window: 400_000, Efforts: openAI5Efforts, Fast: true, Vendor: VendorOpenAI,
		Source: openAIModels + "/gpt-5; " + openAIPriority},
	{Prefix: "gpt-5-chat", Window: 128_000, Vendor: VendorOpenAI,
		Source: openAIModels + "/gpt-5-chat-latest"},
	{Prefix: "gpt-4.1", Window: 1_047_576, Fast: true, Vendor: VendorOpenAI,
		Source: openAIModels + "/gpt-4.1; " + openAIPriority},
	{Prefix: "gpt-4o", Window: 128_000, Fast: true, Vendor: VendorOpenAI,
		Source: openAIModels + "/gpt-4o; " + openAIPriority},
	{Prefix: "o3", Window: 200_000, Efforts: baseEfforts, Fast: true, Vendor: VendorOpenAI,
		Source: openAIModels + "/o3; " + openAIPriority},
	{Prefix: "o4-mini", Window: 200_000, Efforts: baseEfforts, Fast: true, Vendor: VendorOpenAI,
		Source: openAIModels + "/o4-mini; " + openAIPriority},
	{Prefix: "o1", Window: 200_000, Efforts: baseEfforts, Vendor: VendorOpenAI,
		Source: openAIModels + "/o1"},

	{Prefix: "claude-opus-5", Window: 200_000, LongWindow: 1_000_000, Efforts: anthropicAllEfforts, Fast: true, Vendor: VendorAnthropic,
		Source: anthropicModels + "; " + anthropicEffort + "; " + anthropicFast},
	{Prefix: "claude-sonnet-5", Window: 200_000, LongWindow: 1_000_000, Efforts: anthropicAllEfforts, Vendor: VendorAnthropic,
		Source: anthropicModels + "; " + anthropicEffort},
	{Prefix: "claude-fable-5", Window: 200_000, LongWindow: 1_000_000, Efforts: anthropicAllEfforts, Vendor: VendorAnthropic,
		Source: anthropicModels + "; " + anthropicEffort},
	{Prefix: "claude-opus-4-8", Window: 200_000, Efforts: anthropicAllEfforts, Fast: true, Vendor: VendorAnthropic,
		Source: anthropicModels + "; " + anthropicEffort + "; " + anthropicFast},
	{Prefix: "claude-opus-4-7", Window: 200_000, Efforts: anthropicAllEfforts, Vendor: VendorAnthropic,
		Source: anthropicModels + "; " + anthropicEffort},
	{Prefix: "claude-opus-4-6", Window: 200_000, Efforts: anthropicMaxEfforts, Vendor: VendorAnthropic,
		Source: anthropicModels + "; " + anthropicEffort},
	{Prefix: "claude-opus-4-5", Window: 200_000, Efforts: baseEfforts, Vendor: VendorAnthropic,
		Source: anthropicModels + "; " + anthropicEffort},
	{Prefix: "claude-sonnet-4-6", Window: 200_000, Efforts: anthropicMaxEfforts, Vendor: VendorAnthropic,
		Source: anthropicModels + "; " + anthropicEffort},
	{Prefix: "claude-opus-4", Window: 200_000, Vendor: VendorAnthropic, Source: anthropicModels},
	{Prefix: "claude-sonnet-4", Window: 200_000, Vendor: VendorAnthropic, Source: anthropicModels},
	{Prefix: "claude-haiku-4", Window: 200_000, Vendor: VendorAnthropic, Source: anthropicModels},
	{Prefix: "claude-3", Window: 200_000, Vendor: VendorAnthropic, Source: anthropicModels},

	{Prefix: "deepseek-chat", Window: 128_000, Source: deepSeekModels},
	{Prefix: "deepseek-reasoner", Window: 128_000, Source: deepSeekModels},
	{Prefix: "gemini-2.5", Window: 200_000, LongWindow: 1_048_576, Source: geminiModels},
	{Prefix: "gemini-3", Window: 200_000, LongWindow: 1_048_576, Source: geminiModels},
}

// Lookup returns the family of modelID, if the table knows it.
func Lookup(modelID string) (Family, bool) {
	id := Normalize(modelID)
	best := -1
	for i, f := range table {
		if strings.HasPrefix(id, f.Prefix) && (best < 0 || len(f.Prefix) > len(table[best].Prefix)) {
			best = i
		}
	}
	if best < 0 {
		return Family{}, false
	}
	return table[best], true
}

// Normalize is the id a family is matched on: lower case, without a
// gateway's vendor path ("openai/gpt-5.5") or a cloud's vendor and region
// prefix ("us.anthropic.claude-opus-5"), with dots between Claude version
// digits written as dashes ("claude-opus-4.6" as "claude-opus-4-6").
func Normalize(modelID string) string {
	id := strings.ToLower(strings.TrimSpace(modelID))
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	if i := strings.Index(id, "claude-"); i > 0 {
		id = id[i:]
	}
	if strings.HasPrefix(id, "claude-") {
		id = strings.ReplaceAll(id, ".", "-")
	}
	return id
}

// Table returns a copy of the table, for specs and documentation.
func Table() []Family { return append([]Family(nil), table...) }
