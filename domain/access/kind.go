package access

// Kind names a kind of tenant-scoped object: each object of these kinds
// belongs to exactly one user, from its creation on.
type Kind string

// The tenant-scoped kinds.
const (
	KindConversation Kind = "conversation"
	KindRun          Kind = "run"
	KindCall         Kind = "call"
)
