package setup

import (
	"fmt"
	"strings"
)

// TokenEnv is the environment variable Codex reads the gateway token from.
const TokenEnv = "KEYGATE_API_KEY"

// ProviderID is Keygate's table name in Codex's model_providers.
const ProviderID = "keygate"

// ClaudeCode returns the shell lines that point Claude Code at origin
// (Keygate's main listener, no trailing slash) with model (a display name
// or id); token is the gateway token, or a placeholder.
func ClaudeCode(origin, token, model string) string {
	if token == "" {
		token = "<your gateway token>"
	}
	return fmt.Sprintf("export ANTHROPIC_BASE_URL=%s\nexport ANTHROPIC_API_KEY=%s\nexport ANTHROPIC_MODEL=%s\nexport ANTHROPIC_SMALL_FAST_MODEL=%s\nclaude --model %s\n",
		shellQuote(origin), shellQuote(token), shellQuote(model), shellQuote(model), shellQuote(model))
}

// CodexProvider returns Keygate's table of Codex's config.toml.
func CodexProvider(origin string) string {
	return fmt.Sprintf("[model_providers.%s]\nname = \"Keygate\"\nbase_url = %s\nenv_key = %q\nwire_api = \"responses\"\n",
		ProviderID, tomlString(origin+"/v1"), TokenEnv)
}

// Codex returns a whole config.toml choosing model on Keygate.
func Codex(origin, model string) string {
	return fmt.Sprintf("model = %s\nmodel_provider = %q\n\n%s", tomlString(model), ProviderID, CodexProvider(origin))
}

// MergeCodex returns existing config.toml text with model and
// model_provider set to Keygate's (replaced where the file has them at the
// top level, else added before its first table) and Keygate's
// model_providers table replaced or appended; everything else is kept.
func MergeCodex(existing, origin, model string) string {
	lines := strings.Split(strings.TrimRight(existing, "\n"), "\n")
	if existing == "" {
		lines = nil
	}
	var out []string
	top := true
	seen := map[string]bool{}
	set := map[string]string{"model": "model = " + tomlString(model), "model_provider": fmt.Sprintf("model_provider = %q", ProviderID)}
	skipping := false
	addMissing := func() { // after the last top-level line, before blank ones
		end := len(out)
		for end > 0 && strings.TrimSpace(out[end-1]) == "" {
			end--
		}
		var add []string
		for _, k := range []string{"model", "model_provider"} {
			if !seen[k] {
				add = append(add, set[k])
				seen[k] = true
			}
		}
		out = append(out[:end], append(add, out[end:]...)...)
	}
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			if top {
				addMissing()
				top = false
			}
			skipping = tableName(t) == "model_providers."+ProviderID
			if skipping {
				continue
			}
		}
		if skipping {
			continue
		}
		if top {
			if k, _, ok := strings.Cut(t, "="); ok {
				if v, mine := set[strings.TrimSpace(k)]; mine {
					out = append(out, v)
					seen[strings.TrimSpace(k)] = true
					continue
				}
			}
		}
		out = append(out, l)
	}
	if top {
		addMissing()
	}
	for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n") + "\n\n" + CodexProvider(origin)
}

// tableName is the name of a [table] header line, quotes around its
// parts removed.
func tableName(header string) string {
	h := strings.TrimSpace(strings.Trim(strings.TrimSpace(header), "[]"))
	if i := strings.Index(h, "#"); i >= 0 {
		h = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h[:i]), "]"))
	}
	return strings.ReplaceAll(strings.ReplaceAll(h, `"`, ""), " ", "")
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '.' || r == '/' || r == ':' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9'))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
