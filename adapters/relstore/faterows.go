package relstore

import (
	"keygate/domain/tab"
	"keygate/ports"
)

// ParseFate parses a tab.Fate name; an unknown name is 0.
func ParseFate(s string) tab.Fate { return parseName(s, tab.FatePartiallyAccepted) }

// TabFateColumns is a tab_fates row (sqlc's TabFate and
// UpsertTabFateParams), T the engine's [Stamp].
type TabFateColumns[T Stamp] struct {
	UserID     string
	RequestID  string
	Fate       string
	RecordedAt T
}

// TabFateOf is how f is stored.
func TabFateOf[T Stamp](f ports.SuggestionFate) TabFateColumns[T] {
	return TabFateColumns[T]{UserID: f.UserID, RequestID: f.RequestID, Fate: NameOf(f.Fate), RecordedAt: StampOf[T](f.At)}
}

// SuggestionFate maps the row.
func (r TabFateColumns[T]) SuggestionFate() ports.SuggestionFate {
	return ports.SuggestionFate{UserID: r.UserID, RequestID: r.RequestID, Fate: ParseFate(r.Fate), At: TimeOf(r.RecordedAt)}
}

// FateWindowArgs are the arguments of ListTabFates (sqlc's
// ListTabFatesParams).
type FateWindowArgs[T Stamp] struct {
	UserID       string
	Since, Until T
}

// FateWindowOf is the window q asks for; a zero Until must have been made
// [Forever] already.
func FateWindowOf[T Stamp](q ports.FateQuery) FateWindowArgs[T] {
	return FateWindowArgs[T]{UserID: q.UserID, Since: StampOf[T](q.Since), Until: StampOf[T](q.Until)}
}
