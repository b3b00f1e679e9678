package cmdk

// Input is one inline-edit request.
type Input struct {
	// RequestID names the request in call records.
	RequestID string
	// Path is the file's workspace-relative path.
	Path string
	// Instruction is what the user typed.
	Instruction string
	// Start is the first selected line, 1-indexed; Selection the selected
	// lines. An empty selection inserts before line Start.
	Start     int
	Selection []string
	// Before and After are the file's lines just above and below the
	// selection, nearest last and first, as the client sent them.
	Before, After []string
	// TotalLines is the file's line count (0 when unknown).
	TotalLines int
	// Earlier are the session's earlier instructions, oldest first: a
	// follow-up such as "shorter" refers to them.
	Earlier []string
	// Context is what else the user attached or the client found useful
	// (file chunks, definitions, diagnostics, documentation).
	Context []Snippet
	// Rules are the project's and the user's standing instructions.
	Rules []string
	// Chat is set when the user asks about the code: the answer is prose,
	// not an edit.
	Chat bool
}

// End is the line after the selection (exclusive end, 1-indexed).
func (in Input) End() int { return in.Start + len(in.Selection) }

// Snippet is a piece of context with where it comes from.
type Snippet struct {
	// Title says what it is: a path (with its first line when known), a
	// documentation page, "diagnostics".
	Title string
	Text  string
}

// TerminalInput is one terminal Cmd-K request.
type TerminalInput struct {
	RequestID   string
	Instruction string
	// History is the terminal's recent output, oldest first; Cwd its
	// working directory.
	History string
	Cwd     string
	// Earlier are the session's earlier instructions with the commands
	// suggested for them, oldest first.
	Earlier []Exchange
	Context []Snippet
	Rules   []string
}

// Exchange is an earlier instruction and the command suggested for it.
type Exchange struct{ Instruction, Command string }
