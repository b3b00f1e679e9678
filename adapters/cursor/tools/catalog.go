package tools

import (
	_ "embed"
	"encoding/json"
	"fmt"
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

// Tool names of the catalog.
const (
	Read        = "Read"
	Ls          = "Ls"
	Glob        = "Glob"
	Grep        = "Grep"
	Write       = "Write"
	StrReplace  = "StrReplace"
	Delete      = "Delete"
	ReadLints   = "ReadLints"
	Shell       = "Shell"
	WebSearch   = "WebSearch"
	WebFetch    = "WebFetch"
	AskQuestion = "AskQuestion"
	CreatePlan  = "CreatePlan"
	SwitchMode  = "SwitchMode"
	Task        = "Task"
	CallMcpTool = "CallMcpTool"
	TodoWrite   = "TodoWrite"
)

var readOnly = []string{Read, Ls, Glob, Grep, ReadLints}

// modes lists the tools of each mode. Ask and plan cannot change files;
// subagents get no interaction tools and cannot spawn further subagents.
// WebSearch and WebFetch are added by ForMode only when the server can
// search and fetch (on approval the server does it, not the client).
var modes = map[string][]string{
	"agent":     append(append([]string{}, readOnly...), Write, StrReplace, Delete, Shell, TodoWrite, AskQuestion, SwitchMode, Task, CallMcpTool),
	"debug":     append(append([]string{}, readOnly...), Write, StrReplace, Delete, Shell, TodoWrite, AskQuestion, Task, CallMcpTool),
	"multitask": append(append([]string{}, readOnly...), Write, StrReplace, Delete, Shell, TodoWrite, AskQuestion, SwitchMode, Task, CallMcpTool),
	"ask":       append(append([]string{}, readOnly...), TodoWrite, AskQuestion, CallMcpTool),
	"plan":      append(append([]string{}, readOnly...), Shell, TodoWrite, AskQuestion, CreatePlan, Task, CallMcpTool),
	"subagent":  append(append([]string{}, readOnly...), Write, StrReplace, Delete, Shell, CallMcpTool),
}

// ErrUnknownMode marks a mode without a tool list.
var ErrUnknownMode = fmt.Errorf("unknown mode")

// ForMode returns the tools of mode, in catalog order, followed by extra
// (dynamic MCP tools) sorted by name. An extra tool whose name collides
// with a mode tool is an error: the model could not tell them apart. web
// adds WebSearch and WebFetch to every mode but subagent, for a server that
// can search and fetch once the user approved.
func ForMode(mode string, extra []llm.Tool, web bool) ([]llm.Tool, error) {
	names, ok := modes[mode]
	if !ok {
		return nil, fmt.Errorf("tools of mode %q: %w", mode, ErrUnknownMode)
	}
	if web && mode != "subagent" {
		names = append(append([]string{}, names...), WebSearch, WebFetch)
	}
	out := make([]llm.Tool, 0, len(names)+len(extra))
	taken := map[string]bool{}
	for _, n := range names {
		e := catalog[n]
		out = append(out, llm.Tool{Name: n, Description: e.Description, Parameters: []byte(e.Parameters)})
		taken[Canonical(n)] = true
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
