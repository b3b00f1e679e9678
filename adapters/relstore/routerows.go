package relstore

import (
	"time"

	"keygate/domain/routing"
	"keygate/ports"
)

// RouteHealthColumns is a route_health row (sqlc's RouteHealth), T the
// engine's [Stamp].
type RouteHealthColumns[T Stamp] struct {
	Subject      string
	CoolUntil    T
	LastError    string
	LastErrorAt  T
	Failures     int64
	AuthFailures int64
	UpdatedAt    T
}

// Health maps the row.
func (r RouteHealthColumns[T]) Health() routing.Health {
	return routing.Health{CoolUntil: TimeOf(r.CoolUntil), LastError: r.LastError, LastErrorAt: TimeOf(r.LastErrorAt),
		Failures: int(r.Failures), AuthFailures: int(r.AuthFailures)}
}

// HealthBySubject maps the rows by their subject.
func HealthBySubject[T Stamp](rows []RouteHealthColumns[T]) map[string]routing.Health {
	out := make(map[string]routing.Health, len(rows))
	for _, r := range rows {
		out[r.Subject] = r.Health()
	}
	return out
}

// RouteFailureArgs are the arguments of RecordRouteFailure (sqlc's
// RecordRouteFailureParams).
type RouteFailureArgs[T Stamp] struct {
	Subject      string
	CoolUntil    T
	LastError    string
	LastErrorAt  T
	AuthFailures int64
}

// RouteFailureOf is how a failure of subject is recorded.
func RouteFailureOf[T Stamp](subject string, f routing.Failure) RouteFailureArgs[T] {
	auth := int64(0)
	if f.Auth {
		auth = 1
	}
	return RouteFailureArgs[T]{Subject: subject, CoolUntil: StampOf[T](f.CoolUntil),
		LastError: f.Message, LastErrorAt: StampOf[T](f.At), AuthFailures: auth}
}

// AliasColumns is an aliases row (sqlc's Alias).
type AliasColumns[T Stamp] struct {
	ID                  string
	SortOrder           int64
	DisplayName         string
	GroupName           string
	Tooltip             string
	Enabled             bool
	Strategy            string
	FirstTokenTimeoutMs int64
	CreatedAt           T
	UpdatedAt           T
}

// Alias maps the row.
func (r AliasColumns[T]) Alias() ports.Alias {
	return ports.Alias{ID: r.ID, SortOrder: int(r.SortOrder), DisplayName: r.DisplayName, GroupName: r.GroupName,
		Tooltip: r.Tooltip, Enabled: r.Enabled, Strategy: routing.ParseTargetStrategy(r.Strategy),
		FirstTokenTimeout: time.Duration(r.FirstTokenTimeoutMs) * time.Millisecond,
		CreatedAt:         TimeOf(r.CreatedAt), UpdatedAt: TimeOf(r.UpdatedAt)}
}

// UpsertAliasArgs are the arguments of UpsertAlias (sqlc's UpsertAliasParams).
type UpsertAliasArgs[T Stamp] struct {
	ID                  string
	SortOrder           int64
	DisplayName         string
	GroupName           string
	Tooltip             string
	Enabled             bool
	Strategy            string
	FirstTokenTimeoutMs int64
	CreatedAt           T
}

// UpsertAliasOf is how a is stored.
func UpsertAliasOf[T Stamp](a ports.Alias, now time.Time) UpsertAliasArgs[T] {
	return UpsertAliasArgs[T]{
		ID: a.ID, SortOrder: int64(a.SortOrder), DisplayName: a.DisplayName, GroupName: a.GroupName, Tooltip: a.Tooltip,
		Enabled: a.Enabled, Strategy: NameOf(a.Strategy), FirstTokenTimeoutMs: a.FirstTokenTimeout.Milliseconds(),
		CreatedAt: StampOf[T](now)}
}

// AliasTargetColumns is an alias_targets row (sqlc's AliasTarget and
// InsertAliasTargetParams).
type AliasTargetColumns struct {
	AliasID  string
	Position int64
	ModelID  string
	Weight   int64
	Drained  bool
}

// AliasTargetOf is how the target at position of alias aliasID is stored.
func AliasTargetOf(aliasID string, position int, tg ports.AliasTarget) AliasTargetColumns {
	return AliasTargetColumns{AliasID: aliasID, Position: int64(position), ModelID: tg.ModelID, Weight: int64(tg.Weight), Drained: tg.Drained}
}

// Target maps the row.
func (r AliasTargetColumns) Target() ports.AliasTarget {
	return ports.AliasTarget{ModelID: r.ModelID, Weight: int(r.Weight), Drained: r.Drained}
}

// TargetsByAlias groups the rows by alias, in row order.
func TargetsByAlias(rows []AliasTargetColumns) map[string][]ports.AliasTarget {
	out := map[string][]ports.AliasTarget{}
	for _, r := range rows {
		out[r.AliasID] = append(out[r.AliasID], r.Target())
	}
	return out
}
