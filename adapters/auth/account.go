package auth

import (
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"time"

	"go.uber.org/zap"

	"keygate/domain/access"
	"keygate/domain/audit"
	"keygate/domain/token"
	"keygate/ports"
)

// TokenService is the personal-gateway-token use case as the account
// routes need it; app/company.Tokens implements it.
type TokenService interface {
	// Create mints a token living ttlDays days (0: the longest allowed).
	Create(ctx context.Context, caller access.Principal, name string, ttlDays int) (token.Token, string, error)
	List(ctx context.Context, caller access.Principal, all bool) ([]token.Token, error)
	Revoke(ctx context.Context, caller access.Principal, id string) (token.Token, error)
}

// AuditService is the audit use case as the account routes need it;
// app/company.Auditor implements it.
type AuditService interface {
	Entries(ctx context.Context, caller access.Principal, q ports.AuditQuery) ([]audit.Entry, error)
}

// AccountRoutes returns the signed-in user's JSON endpoints, each behind
// Guard, as net/http.ServeMux patterns:
//
//	GET    /auth/tokens[?all=1]   the caller's tokens (all=1: everyone's, admins)
//	POST   /auth/tokens           {"name", "ttlDays"} → the token and, once, its text
//	DELETE /auth/tokens/{id}      revoke
//	GET    /auth/audit[?before=&actor=&limit=]  audit entries (admins)
//
// A nil service leaves its routes out. POST requires a JSON body, which a
// cross-site form cannot send without a CORS preflight.
func (g *Gate) AccountRoutes(tokens TokenService, auditor AuditService) map[string]http.Handler {
	a := account{tokens: tokens, audit: auditor, log: g.log}
	routes := map[string]http.Handler{}
	if tokens != nil {
		routes["GET /auth/tokens"] = g.Guard(http.HandlerFunc(a.listTokens))
		routes["POST /auth/tokens"] = g.Guard(http.HandlerFunc(a.createToken))
		routes["DELETE /auth/tokens/{id}"] = g.Guard(http.HandlerFunc(a.revokeToken))
	}
	if auditor != nil {
		routes["GET /auth/audit"] = g.Guard(http.HandlerFunc(a.entries))
	}
	return routes
}

type account struct {
	tokens TokenService
	audit  AuditService
	log    *zap.Logger
}

type tokenJSON struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Hint       string `json:"hint"`
	OwnerID    string `json:"ownerId"`
	OwnerName  string `json:"ownerName,omitempty"`
	CreatedAt  string `json:"createdAt"`
	ExpiresAt  string `json:"expiresAt,omitempty"`
	LastUsedAt string `json:"lastUsedAt,omitempty"`
	RevokedAt  string `json:"revokedAt,omitempty"`
}

func viewToken(t token.Token) tokenJSON {
	return tokenJSON{ID: t.ID, Name: t.Name, Hint: t.Hint, OwnerID: t.Owner.UserID, OwnerName: t.Owner.Name,
		CreatedAt: stamp(t.CreatedAt), ExpiresAt: stamp(t.ExpiresAt), LastUsedAt: stamp(t.LastUsedAt), RevokedAt: stamp(t.RevokedAt)}
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func (a account) listTokens(w http.ResponseWriter, r *http.Request) {
	p, _ := access.FromContext(r.Context())
	list, err := a.tokens.List(r.Context(), p, r.URL.Query().Get("all") == "1")
	if err != nil {
		a.fail(w, err)
		return
	}
	out := make([]tokenJSON, len(list))
	for i, t := range list {
		out[i] = viewToken(t)
	}
	writeJSON(w, http.StatusOK, map[string]any{"tokens": out})
}

func (a account) createToken(w http.ResponseWriter, r *http.Request) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		http.Error(w, "send application/json", http.StatusUnsupportedMediaType)
		return
	}
	// ttlDays is a JSON number of days; one that does not fit an int32
	// is refused while decoding, and the use case bounds the rest before
	// computing any duration.
	var in struct {
		Name    string `json:"name"`
		TTLDays int32  `json:"ttlDays"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&in); err != nil || in.TTLDays < 0 {
		http.Error(w, "expected {\"name\": string, \"ttlDays\": number >= 0}", http.StatusBadRequest)
		return
	}
	p, _ := access.FromContext(r.Context())
	t, text, err := a.tokens.Create(r.Context(), p, in.Name, int(in.TTLDays))
	if err != nil {
		a.fail(w, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, map[string]any{"token": viewToken(t), "secret": text})
}

func (a account) revokeToken(w http.ResponseWriter, r *http.Request) {
	p, _ := access.FromContext(r.Context())
	if _, err := a.tokens.Revoke(r.Context(), p, r.PathValue("id")); err != nil {
		a.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

type entryJSON struct {
	Seq       int64           `json:"seq"`
	At        string          `json:"at"`
	ActorID   string          `json:"actorId"`
	ActorName string          `json:"actorName,omitempty"`
	Role      string          `json:"role"`
	Action    string          `json:"action"`
	Target    string          `json:"target"`
	Before    json.RawMessage `json:"before,omitempty"`
	After     json.RawMessage `json:"after,omitempty"`
}

func (a account) entries(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	before, _ := strconv.ParseInt(q.Get("before"), 10, 64)
	limit, _ := strconv.Atoi(q.Get("limit"))
	p, _ := access.FromContext(r.Context())
	list, err := a.audit.Entries(r.Context(), p, ports.AuditQuery{BeforeSeq: before, ActorID: q.Get("actor"), Limit: min(limit, 500)})
	if err != nil {
		a.fail(w, err)
		return
	}
	out := make([]entryJSON, len(list))
	for i, e := range list {
		out[i] = entryJSON{Seq: e.Seq, At: stamp(e.At), ActorID: e.Actor.UserID, ActorName: e.Actor.Name, Role: e.Role,
			Action: e.Action, Target: e.Target, Before: e.Before, After: e.After}
	}
	writeJSON(w, http.StatusOK, map[string]any{"entries": out})
}

// fail maps use-case errors to statuses; anything unexpected is logged once
// here and answered without detail.
func (a account) fail(w http.ResponseWriter, err error) {
	var lifetime *token.LifetimeError
	var tooMany *token.TooManyError
	switch {
	case errors.Is(err, access.ErrDenied):
		http.Error(w, "administrators only", http.StatusForbidden)
	case errors.Is(err, ports.ErrNotFound):
		http.Error(w, "not found", http.StatusNotFound)
	case errors.Is(err, token.ErrNoName):
		http.Error(w, "a token needs a name", http.StatusBadRequest)
	case errors.As(err, &lifetime):
		http.Error(w, lifetime.Error(), http.StatusBadRequest)
	case errors.As(err, &tooMany):
		http.Error(w, tooMany.Error(), http.StatusConflict)
	default:
		a.log.Error("account request failed", zap.Error(err))
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
