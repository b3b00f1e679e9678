package relstore

import (
	"keygate/domain/audit"
	"keygate/domain/identity"
	"keygate/domain/token"
)

// TokenColumns is a gateway_tokens row (sqlc's GatewayToken and
// InsertGatewayTokenParams), T the engine's [Stamp].
type TokenColumns[T Stamp] struct {
	ID         string
	UserID     string
	UserName   string
	Name       string
	Hash       []byte
	Hint       string
	CreatedAt  T
	ExpiresAt  T
	LastUsedAt T
	RevokedAt  T
}

// TokenOf is how tok is stored.
func TokenOf[T Stamp](tok token.Token) TokenColumns[T] {
	return TokenColumns[T]{
		ID: tok.ID, UserID: tok.Owner.UserID, UserName: tok.Owner.Name, Name: tok.Name,
		Hash: tok.Hash[:], Hint: tok.Hint, CreatedAt: StampOf[T](tok.CreatedAt), ExpiresAt: StampOf[T](tok.ExpiresAt),
		LastUsedAt: StampOf[T](tok.LastUsedAt), RevokedAt: StampOf[T](tok.RevokedAt),
	}
}

// Token maps the row.
func (r TokenColumns[T]) Token() token.Token {
	t := token.Token{
		ID: r.ID, Owner: identity.Identity{UserID: r.UserID, Name: r.UserName}, Name: r.Name, Hint: r.Hint,
		CreatedAt: TimeOf(r.CreatedAt), ExpiresAt: TimeOf(r.ExpiresAt),
		LastUsedAt: TimeOf(r.LastUsedAt), RevokedAt: TimeOf(r.RevokedAt),
	}
	copy(t.Hash[:], r.Hash)
	return t
}

// AuditColumns is an audit_log row (sqlc's AuditLog).
type AuditColumns[T Stamp] struct {
	Seq       int64
	At        T
	ActorID   string
	ActorName string
	Role      string
	Action    string
	Target    string
	BeforeDoc []byte
	AfterDoc  []byte
}

// Entry maps the row.
func (r AuditColumns[T]) Entry() audit.Entry {
	return audit.Entry{
		Seq: r.Seq, At: TimeOf(r.At), Actor: identity.Identity{UserID: r.ActorID, Name: r.ActorName},
		Role: r.Role, Action: r.Action, Target: r.Target, Before: r.BeforeDoc, After: r.AfterDoc,
	}
}

// AuditEntryArgs are the arguments of InsertAuditEntry (sqlc's
// InsertAuditEntryParams).
type AuditEntryArgs[T Stamp] struct {
	At        T
	ActorID   string
	ActorName string
	Role      string
	Action    string
	Target    string
	BeforeDoc []byte
	AfterDoc  []byte
}

// AuditEntryOf is how e is stored (its Seq is the database's).
func AuditEntryOf[T Stamp](e audit.Entry) AuditEntryArgs[T] {
	return AuditEntryArgs[T]{
		At: StampOf[T](e.At), ActorID: e.Actor.UserID, ActorName: e.Actor.Name, Role: e.Role,
		Action: e.Action, Target: e.Target, BeforeDoc: e.Before, AfterDoc: e.After,
	}
}
