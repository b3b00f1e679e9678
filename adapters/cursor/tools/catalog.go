package tools

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
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

// ForMode returns the tools of mode, in registry order. web says which of
// WebSearch and WebFetch the turn may offer (every mode but subagent
// offers them then). The client's own MCP tools are not among them: the
// request context lists them and CallMcpTool calls them, so an MCP server
// added mid-conversation leaves the tools as they were.
func ForMode(mode string, web WebAccess) ([]llm.Tool, error) {
	if !slices.Contains(everyMode, mode) {
		return nil, fmt.Errorf("tools of mode %q: %w", mode, ErrUnknownMode)
	}
	out := make([]llm.Tool, 0, len(registry))
	for _, t := range registry {
		if !t.offeredIn(mode, web) {
			continue
		}
		e := catalog[t.name]
		out = append(out, llm.Tool{Name: t.name, Description: e.Description, Parameters: []byte(e.Parameters)})
	}
	return out, nil
}

// SharedTools is how many leading tools of ForMode(mode, web) every mode a
// conversation switches among (agent, ask, plan, debug, multitask) offers
// the same way: the head of the tool list a mode switch keeps. It is 0 for
// a mode outside them (a subagent never switches).
func SharedTools(mode string, web WebAccess) int {
	if !slices.Contains(userModes, mode) {
		return 0
	}
	n := 0
	for _, t := range registry {
		if !t.offeredIn(mode, web) {
			continue
		}
		for _, m := range userModes {
			if !t.offeredIn(m, web) {
				return n
			}
		}
		n++
	}
	return n
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
