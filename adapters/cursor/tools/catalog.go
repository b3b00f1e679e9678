package tools

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"keygate/domain/llm"
)

//go:embed catalog.json
var catalogJSON []byte

type entry struct {
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// catalog is parsed once; a broken catalog.json is a build defect, caught by
// the package's specs.
var catalog = func() map[string]entry {
	m := map[string]entry{}
	if err := json.Unmarshal(catalogJSON, &m); err != nil {
		panic(fmt.Sprintf("tools: parse catalog.json: %v", err))
	}
	return m
}()

// ErrUnknownMode marks a mode without a tool list.
var ErrUnknownMode = fmt.Errorf("unknown mode")

// ForMode returns the tools of mode, in registry order, followed by extra
// (dynamic MCP tools) sorted by name. An extra tool whose name collides
// with a mode tool is an error: the model could not tell them apart. web
// says which of WebSearch and WebFetch the turn may offer (every mode but
// subagent offers them then).
func ForMode(mode string, extra []llm.Tool, web WebAccess) ([]llm.Tool, error) {
	if !slices.Contains(everyMode, mode) {
		return nil, fmt.Errorf("tools of mode %q: %w", mode, ErrUnknownMode)
	}
	out := make([]llm.Tool, 0, len(registry)+len(extra))
	taken := map[string]bool{}
	for _, t := range registry {
		if !t.offeredIn(mode, web) {
			continue
		}
		e := catalog[t.name]
		out = append(out, llm.Tool{Name: t.name, Description: e.Description, Parameters: []byte(e.Parameters)})
		taken[Canonical(t.name)] = true
	}
	dyn := append([]llm.Tool(nil), extra...)
	sort.Slice(dyn, func(i, j int) bool { return dyn[i].Name < dyn[j].Name })
	for _, t := range dyn {
		if taken[Canonical(t.Name)] {
			return nil, fmt.Errorf("mcp tool %q collides with a tool of mode %q", t.Name, mode)
		}
		taken[Canonical(t.Name)] = true
		out = append(out, t)
	}
	return out, nil
}

// Canonical folds a tool name for matching: lower case, letters and digits
// only.
func Canonical(name string) string {
	var b strings.Builder
	for _, r := range name {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
