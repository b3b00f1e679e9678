package turn

import (
	"fmt"
	"strings"

	"keygate/domain/llm"
)

// Selection is the context the user attached to one message: files, code,
// terminals, rules, commands, skills, links and images. It is turn-level and
// goes into the runtime message; conversation-level rules and MCP metadata
// are not part of it and live only in the request context.
type Selection struct {
	Files              []File
	Code               []CodeSelection
	Terminals          []Terminal
	TerminalSelections []string
	// Rules are rules the user attached to this message explicitly.
	Rules         []Rule
	Commands      []Command
	Skills        []Skill
	ExternalLinks []string
	// Hooks is what the user's hooks added to this message.
	Hooks  []HookContext
	Images []llm.Image
}

// HookContext is context a hook added, named by the hook's event.
type HookContext struct {
	Event   string
	Content string
}

// File is an attached file.
type File struct {
	Path    string
	Content string
}

// CodeSelection is an attached range of a file.
type CodeSelection struct {
	Path      string
	StartLine int
	EndLine   int
	Content   string
}

// Terminal is an attached terminal's output.
type Terminal struct {
	Title   string
	Content string
}

// Command is a slash command the user invoked.
type Command struct {
	Name    string
	Content string
}

// RuntimeParts builds the runtime message's content from the user's text
// and the turn's selected context: one text part with the attached sections
// followed by the text, then one part per image. It receives only the turn's
// selection, so conversation-level context cannot leak into the runtime
// message.
func RuntimeParts(text string, sel Selection) []llm.Part {
	var sections []string
	for _, f := range sel.Files {
		sections = append(sections, element("file", attrs("path", f.Path), f.Content))
	}
	for _, c := range sel.Code {
		lines := ""
		if c.StartLine > 0 {
			lines = fmt.Sprintf("%d-%d", c.StartLine, c.EndLine)
		}
		sections = append(sections, element("code", attrs("path", c.Path, "lines", lines), c.Content))
	}
	for _, t := range sel.Terminals {
		sections = append(sections, element("terminal", attrs("title", t.Title), t.Content))
	}
	for _, s := range sel.TerminalSelections {
		sections = append(sections, element("terminal_selection", "", s))
	}
	for _, r := range sel.Rules {
		sections = append(sections, element("rule", attrs("path", r.Path), r.Content))
	}
	for _, c := range sel.Commands {
		sections = append(sections, element("command", attrs("name", c.Name), c.Content))
	}
	for _, s := range sel.Skills {
		sections = append(sections, element("skill", attrs("path", s.Path), s.Content))
	}
	for _, l := range sel.ExternalLinks {
		sections = append(sections, "External link: "+l)
	}
	for _, h := range sel.Hooks {
		sections = append(sections, element("hook_context", attrs("event", h.Event), h.Content))
	}
	sections = append(sections, text)
	parts := []llm.Part{{Kind: llm.PartText, Text: strings.Join(nonEmpty(sections...), "\n\n")}}
	if parts[0].Text == "" {
		parts = nil
	}
	for i := range sel.Images {
		img := sel.Images[i]
		parts = append(parts, llm.Part{Kind: llm.PartImage, Image: &img})
	}
	return parts
}
