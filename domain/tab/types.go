package tab

// Input is one next-edit request, as the editor sent it. Lines and columns
// are 0-indexed here, as the client sends the cursor; the edits Keygate
// answers with are 1-indexed (see Range).
type Input struct {
	// RequestID is the client's id of the request; fates name it.
	RequestID string
	// Path is the file's workspace-relative path.
	Path string
	// Contents is the whole file as the editor holds it.
	Contents string
	// Line and Column are the cursor, 0-indexed; Column counts UTF-16
	// code units, as the editor does.
	Line, Column int
	// LanguageID is the editor's language of the file ("go", "typescript").
	LanguageID string
	// LineEnding is the file's line ending ("\n" or "\r\n"); empty means "\n".
	LineEnding string
	// Workspace identifies the workspace the file belongs to.
	Workspace string
	// Recent are the user's recent edits, newest last, each a small diff.
	Recent []FileDiff
	// Open are other open or recently viewed files, with what is visible of them.
	Open []OpenFile
	// Lints are the diagnostics of the current file.
	Lints []Lint
}

// FileDiff is a recent edit of one file, as the unified-style diff text the
// editor keeps.
type FileDiff struct {
	Path string
	Diff string
}

// OpenFile is a file the user has open or viewed recently, with the
// snippets visible of it.
type OpenFile struct {
	Path     string
	Snippets []Snippet
}

// Snippet is a run of lines of a file starting at a 1-indexed line.
type Snippet struct {
	StartLine int
	Text      string
}

// Lint is one diagnostic of the current file; Line is 1-indexed.
type Lint struct {
	Line     int
	Severity string
	Message  string
}

// Range is an inclusive range of 1-indexed lines of the current file.
// An edit replaces lines StartLine..EndLine with its text split on "\n":
// the text of an edit that keeps line count is those lines' new contents
// joined by "\n", without a trailing line break.
type Range struct {
	StartLine int
	EndLine   int
}

// EventKind says what an Event carries.
type EventKind uint8

// The events of one prediction, in stream order: for each edit one
// EventBeginEdit (with its Range), EventText pieces, one EventDoneEdit;
// then at most one EventJump. Edits apply in stream order, each to the
// file as the earlier edits of the same prediction left it (Apply,
// ApplyEvents); a jump's line is in that edited file.
const (
	EventBeginEdit EventKind = iota + 1
	EventText
	EventDoneEdit
	EventJump
)

// Event is one step of a streamed prediction.
type Event struct {
	Kind EventKind
	// Range is the lines an edit replaces (EventBeginEdit).
	Range Range
	// Text is a piece of the replacement (EventText).
	Text string
	// Jump is where the cursor should go next (EventJump).
	Jump *Jump
}

// Jump names the next place the user is predicted to edit.
type Jump struct {
	Path string
	// Line is 1-indexed.
	Line int
	// Expected is the line's contents as the prediction expects them.
	Expected string
}

// Fate is what the user did with a suggestion.
type Fate uint8

// Fates, as the client reports them.
const (
	FateAccepted Fate = iota + 1
	FateRejected
	FatePartiallyAccepted
)

// String returns the stored name of f.
func (f Fate) String() string {
	switch f {
	case FateAccepted:
		return "accepted"
	case FateRejected:
		return "rejected"
	case FatePartiallyAccepted:
		return "partial"
	default:
		return "unknown"
	}
}
