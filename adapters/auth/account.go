package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"go.uber.org/zap"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"keygate/domain/access"
	"keygate/domain/audit"
	"keygate/domain/token"
	accountv1 "keygate/gen/keygate/account/v1"
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

// viewToken is t as the routes show it, never with its secret.
func viewToken(t token.Token) *accountv1.GatewayToken {
	return &accountv1.GatewayToken{Id: t.ID, Name: t.Name, Hint: t.Hint, OwnerId: t.Owner.UserID, OwnerName: present(t.Owner.Name),
		CreatedAt: stamp(t.CreatedAt), ExpiresAt: present(stamp(t.ExpiresAt)), LastUsedAt: present(stamp(t.LastUsedAt)), RevokedAt: present(stamp(t.RevokedAt))}
}

// present makes an empty string an absent field, as the routes always
// left it out.
func present(s string) *string {
	if s == "" {
		return nil
	}
	return &s
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
	out := &accountv1.ListTokensResponse{Tokens: make([]*accountv1.GatewayToken, len(list))}
	for i, t := range list {
		out.Tokens[i] = viewToken(t)
	}
	writeMessage(w, a.log, http.StatusOK, out)
}

func (a account) createToken(w http.ResponseWriter, r *http.Request) {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		http.Error(w, "send application/json", http.StatusUnsupportedMediaType)
		return
	}
	// ttlDays is a JSON number of days; one that does not fit an int32
	// is refused while decoding, and the use case bounds the rest before
	// computing any duration.
	var in accountv1.CreateTokenRequest
	if err := readMessage(w, r, &in); err != nil || in.TtlDays < 0 {
		http.Error(w, "expected {\"name\": string, \"ttlDays\": number >= 0}", http.StatusBadRequest)
		return
	}
	p, _ := access.FromContext(r.Context())
	t, text, err := a.tokens.Create(r.Context(), p, in.Name, int(in.TtlDays))
	if err != nil {
		a.fail(w, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	writeMessage(w, a.log, http.StatusCreated, &accountv1.CreateTokenResponse{Token: viewToken(t), Secret: text})
}

func (a account) revokeToken(w http.ResponseWriter, r *http.Request) {
	p, _ := access.FromContext(r.Context())
	if _, err := a.tokens.Revoke(r.Context(), p, r.PathValue("id")); err != nil {
		a.fail(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
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
	out := &accountv1.ListAuditEntriesResponse{Entries: make([]*accountv1.AuditEntry, len(list))}
	for i, e := range list {
		v := &accountv1.AuditEntry{Seq: float64(e.Seq), At: stamp(e.At), ActorId: e.Actor.UserID, ActorName: present(e.Actor.Name),
			Role: e.Role, Action: e.Action, Target: e.Target}
		if v.Before, err = jsonValue(e.Before); err == nil {
			v.After, err = jsonValue(e.After)
		}
		if err != nil {
			a.fail(w, fmt.Errorf("audit entry %d: %w", e.Seq, err))
			return
		}
		out.Entries[i] = v
	}
	writeMessage(w, a.log, http.StatusOK, out)
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

// jsonValue carries a stored JSON document as a google.protobuf.Value;
// an empty one is an absent field.
func jsonValue(raw []byte) (*structpb.Value, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	v := &structpb.Value{}
	if err := protojson.Unmarshal(raw, v); err != nil {
		return nil, fmt.Errorf("read stored json: %w", err)
	}
	return v, nil
}

// readMessage reads a JSON request body of at most 4 KiB into m. Unknown
// fields are ignored, as they always were.
func readMessage(w http.ResponseWriter, r *http.Request, m proto.Message) error {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 4096))
	if err != nil {
		return fmt.Errorf("read request body: %w", err)
	}
	return protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(raw, m)
}

// writeMessage answers m as compact JSON (protojson's own spacing varies
// on purpose), every field without presence included even when empty.
func writeMessage(w http.ResponseWriter, log *zap.Logger, status int, m proto.Message) {
	raw, err := protojson.MarshalOptions{EmitDefaultValues: true}.Marshal(m)
	var out bytes.Buffer
	if err == nil {
		err = json.Compact(&out, raw)
	}
	if err != nil {
		log.Error("encode account answer", zap.Error(err))
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	out.WriteByte('\n')
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(out.Bytes())
}
