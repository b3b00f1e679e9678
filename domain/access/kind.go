package access

// Kind names a kind of tenant-scoped object whose owner is recorded
// (ports.OwnerStore): each such object belongs to exactly one user, from its
// creation on. Conversations are claimed at their first Open; runs and call
// records belong to their conversation's user (a call record also carries
// its user itself), so their kinds are reserved rather than claimed today.
type Kind string

// The tenant-scoped kinds.
const (
	KindConversation Kind = "conversation"
	KindRun          Kind = "run"
	KindCall         Kind = "call"
)
