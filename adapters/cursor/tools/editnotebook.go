package tools

import (
	"encoding/json"
	"fmt"
	"strings"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// editNotebookTool edits one cell of a Jupyter notebook, or inserts a new
// cell. The client reads and writes whole files, so the call reads the
// notebook, edits its JSON on the server and writes it back: two execs,
// shown as an edit card with the file before and after.
var editNotebookTool = &tool{
	name:  "EditNotebook",
	modes: editingModes,
	runs:  onClient,
	open:  func() handler { return &editNotebook{} },
}

// editNotebook is an EditNotebook call: the notebook it read, and its text
// once edited.
type editNotebook struct {
	path          string
	before, after string
	writing       bool
}

func (nb *editNotebook) start(c *call) (Action, error) {
	path, err := c.required("target_notebook", "path")
	if err != nil {
		return Action{}, err
	}
	if _, ok := c.num("cell_idx"); !ok {
		return Action{}, c.missing("cell_idx")
	}
	if _, ok := c.args["new_string"].(string); !ok {
		return Action{}, c.missing("new_string")
	}
	c.card.Tool = &agentv1.ToolCall_EditToolCall{EditToolCall: &agentv1.EditToolCall{Args: &agentv1.EditArgs{Path: path}}}
	nb.path = path
	return readExec(c, path), nil
}

func (nb *editNotebook) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	if nb.writing {
		w := m.GetWriteResult()
		if w == nil {
			return c.unexpected(m)
		}
		if w.GetSuccess() == nil {
			return nb.failed(c, describe("write", w))
		}
		before := nb.before
		c.card.GetEditToolCall().Result = &agentv1.EditResult{Result: &agentv1.EditResult_Success{Success: &agentv1.EditSuccess{
			Path: nb.path, BeforeFullFileContent: &before, AfterFullFileContent: nb.after}}}
		return finish(fmt.Sprintf("Edited cell %d of %s.", cellIndex(c), nb.path), false)
	}
	r := m.GetReadResult()
	if r == nil {
		return c.unexpected(m)
	}
	switch {
	case r.GetSuccess() != nil:
		nb.before = r.GetSuccess().GetContent()
	case r.GetFileNotFound() != nil && c.flag("is_new_cell"):
		nb.before = "" // a new notebook
	default:
		return nb.failed(c, describe("read", r))
	}
	after, err := editCell(nb.before, cellIndex(c), c.flag("is_new_cell"), c.str("cell_language"),
		str(c.args, "old_string"), str(c.args, "new_string"))
	if err != nil {
		return nb.failed(c, err.Error())
	}
	nb.after, nb.writing = after, true
	return c.exec(func(m *agentv1.ExecServerMessage) {
		m.Message = &agentv1.ExecServerMessage_WriteArgs{WriteArgs: &agentv1.WriteArgs{Path: nb.path, FileText: after, ToolCallId: c.id}}
	})
}

func cellIndex(c *call) int {
	n, _ := c.num("cell_idx")
	return int(n)
}

func (nb *editNotebook) failed(c *call, msg string) Action {
	c.card.GetEditToolCall().Result = &agentv1.EditResult{Result: &agentv1.EditResult_Error{Error: &agentv1.EditError{Path: nb.path, Error: msg}}}
	return fail(msg)
}

// editCell edits the notebook text: a new cell of language at idx holding
// repl, or in cell idx the one occurrence of old replaced by repl. Other
// fields are kept; the notebook is written back with one-space indents and
// sorted keys, as Jupyter writes it.
func editCell(text string, idx int, isNew bool, language, old, repl string) (string, error) {
	nb := map[string]any{}
	if strings.TrimSpace(text) == "" {
		nb = map[string]any{"cells": []any{}, "metadata": map[string]any{}, "nbformat": 4, "nbformat_minor": 5}
	} else if err := json.Unmarshal([]byte(text), &nb); err != nil {
		return "", fmt.Errorf("the file is not a notebook: %w", err)
	}
	cells, ok := nb["cells"].([]any)
	if !ok {
		return "", fmt.Errorf("the notebook has no cells list")
	}
	switch {
	case isNew:
		if idx < 0 || idx > len(cells) {
			return "", fmt.Errorf("cell_idx %d is outside 0..%d", idx, len(cells))
		}
		cell := map[string]any{"cell_type": "code", "metadata": map[string]any{}, "source": sourceLines(repl),
			"execution_count": nil, "outputs": []any{}}
		if language == "markdown" || language == "raw" {
			cell = map[string]any{"cell_type": language, "metadata": map[string]any{}, "source": sourceLines(repl)}
		}
		cells = append(cells[:idx], append([]any{cell}, cells[idx:]...)...)
	default:
		if idx < 0 || idx >= len(cells) {
			return "", fmt.Errorf("cell_idx %d is outside 0..%d", idx, len(cells)-1)
		}
		cell, ok := cells[idx].(map[string]any)
		if !ok {
			return "", fmt.Errorf("cell %d is not an object", idx)
		}
		src := cellSource(cell["source"])
		switch n := strings.Count(src, old); {
		case old == "" && src != "":
			return "", fmt.Errorf("old_string is empty but cell %d is not", idx)
		case old != "" && n == 0:
			return "", fmt.Errorf("old_string was not found in cell %d", idx)
		case n > 1:
			return "", fmt.Errorf("old_string occurs %d times in cell %d; give more context", n, idx)
		}
		if old == "" {
			src = repl
		} else {
			src = strings.Replace(src, old, repl, 1)
		}
		cell["source"] = sourceLines(src)
	}
	nb["cells"] = cells
	out, err := json.MarshalIndent(nb, "", " ")
	if err != nil {
		return "", fmt.Errorf("write the notebook: %w", err)
	}
	return string(out) + "\n", nil
}

// cellSource joins a cell's source, a string or a list of lines.
func cellSource(v any) string {
	switch s := v.(type) {
	case string:
		return s
	case []any:
		var b strings.Builder
		for _, l := range s {
			ls, _ := l.(string)
			b.WriteString(ls)
		}
		return b.String()
	}
	return ""
}

// sourceLines splits text into a notebook's source lines, each but the
// last keeping its newline.
func sourceLines(text string) []any {
	out := []any{}
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}
