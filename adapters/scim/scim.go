package scim

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	elimity "github.com/elimity-com/scim"
	scimerrors "github.com/elimity-com/scim/errors"
	"github.com/elimity-com/scim/optional"
	"github.com/elimity-com/scim/schema"
	"go.uber.org/zap"

	"keygate/ports"
)

// Bounds of one request.
const (
	// MaxBody bounds a request body: a group PATCH adding a few thousand
	// members fits.
	MaxBody = 1 << 20
	// Timeout bounds a request's work.
	Timeout = 30 * time.Second
	// pageSize is the most resources one list answer holds.
	pageSize = 200
)

// Prefix is where the endpoint is mounted on the main listener.
const Prefix = "/scim/v2"

// Provisioning is what the endpoint needs of the provisioning use case
// (company.Provisioning).
type Provisioning interface {
	Entry(ctx context.Context, kind, id string) (ports.DirectoryEntry, error)
	Entries(ctx context.Context, kind string) ([]ports.DirectoryEntry, error)
	Create(ctx context.Context, e ports.DirectoryEntry) (ports.DirectoryEntry, error)
	Replace(ctx context.Context, e ports.DirectoryEntry) (ports.DirectoryEntry, error)
	Delete(ctx context.Context, kind, id string) error
}

// Options configure the endpoint.
type Options struct {
	Provisioning Provisioning
	// Token is the bearer token identity providers present; it must not
	// be empty.
	Token string
	Log   *zap.Logger
}

// Server serves SCIM 2.0.
type Server struct {
	scim  elimity.Server
	token [sha256.Size]byte
	log   *zap.Logger
}

// New returns the endpoint.
func New(o Options) (*Server, error) {
	if strings.TrimSpace(o.Token) == "" {
		return nil, errors.New("the SCIM endpoint needs a bearer token")
	}
	user := schema.CoreUserSchema()
	group := schema.CoreGroupSchema()
	s, err := elimity.NewServer(&elimity.ServerArgs{
		ServiceProviderConfig: &elimity.ServiceProviderConfig{
			MaxResults: pageSize, SupportFiltering: true, SupportPatch: true,
			AuthenticationSchemes: []elimity.AuthenticationScheme{{Type: elimity.AuthenticationTypeOauthBearerToken,
				Name: "Bearer token", Description: "The token in KEYGATE_SCIM_TOKEN_FILE."}},
		},
		ResourceTypes: []elimity.ResourceType{
			{ID: optional.NewString("User"), Name: "User", Endpoint: "/Users", Description: optional.NewString("Keygate users"),
				Schema: user, SchemaExtensions: []elimity.SchemaExtension{{Schema: schema.ExtensionEnterpriseUser()}},
				Handler: &handler{kind: ports.DirectoryUser, p: o.Provisioning, user: user}},
			{ID: optional.NewString("Group"), Name: "Group", Endpoint: "/Groups", Description: optional.NewString("Groups of Keygate users"),
				Schema: group, Handler: &handler{kind: ports.DirectoryGroup, p: o.Provisioning}},
		},
	}, elimity.WithLogger(zapLogger{o.Log}))
	if err != nil {
		return nil, fmt.Errorf("new SCIM server: %w", err)
	}
	return &Server{scim: s, token: sha256.Sum256([]byte(strings.TrimSpace(o.Token))), log: o.Log}, nil
}

// Routes returns the endpoint as net/http.ServeMux patterns.
func (s *Server) Routes() map[string]http.Handler {
	return map[string]http.Handler{Prefix + "/": s, Prefix: s}
}

// ServeHTTP authenticates the request, bounds it and hands it to the
// library, which routes it under /v2.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="keygate-scim"`)
		writeError(w, http.StatusUnauthorized, "a valid SCIM bearer token is required")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), Timeout)
	defer cancel()
	r = r.WithContext(ctx)
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	}
	if r.ContentLength > MaxBody {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("a SCIM request body holds at most %d bytes", MaxBody))
		return
	}
	r2 := r.Clone(ctx)
	r2.URL.Path = strings.TrimPrefix(r.URL.Path, "/scim")
	r2.URL.RawPath = ""
	if r.Method == http.MethodPatch {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("a SCIM request body holds at most %d bytes", MaxBody))
			return
		}
		r2.Body = io.NopCloser(bytes.NewReader(booleansOf(body)))
		r2.ContentLength = -1
	}
	s.scim.ServeHTTP(w, r2)
}

// booleansOf returns a PATCH body with the booleans Entra ID sends as
// strings ("False", "True") for active, with a path or in a path-less
// value map, made JSON booleans, which the library's schema validation
// expects; any other body is returned as it is.
func booleansOf(body []byte) []byte {
	var req map[string]any
	if json.Unmarshal(body, &req) != nil {
		return body
	}
	changed := false
	for k, v := range req {
		if !strings.EqualFold(k, "Operations") {
			continue
		}
		ops, _ := v.([]any)
		for _, o := range ops {
			op, ok := o.(map[string]any)
			if !ok {
				continue
			}
			_, path, _ := lookup(op, "path")
			key, value, _ := lookup(op, "value")
			if p, _ := path.(string); strings.EqualFold(strings.TrimSpace(p), "active") {
				if b, ok := stringBool(value); ok {
					op[key], changed = b, true
				}
				continue
			}
			if m, ok := value.(map[string]any); ok && path == nil {
				if k, v, ok := lookup(m, "active"); ok {
					if b, ok := stringBool(v); ok {
						m[k], changed = b, true
					}
				}
			}
		}
	}
	if !changed {
		return body
	}
	out, err := json.Marshal(req)
	if err != nil {
		return body
	}
	return out
}

// stringBool parses a boolean sent as a string.
func stringBool(v any) (bool, bool) {
	s, ok := v.(string)
	if !ok {
		return false, false
	}
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	return b, err == nil
}

// authorized compares the request's bearer token with the configured one
// in constant time (of their hashes, so lengths do not show).
func (s *Server) authorized(r *http.Request) bool {
	scheme, text, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(text)))
	return subtle.ConstantTimeCompare(got[:], s.token[:]) == 1
}

func writeError(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/scim+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"schemas": []string{"urn:ietf:params:scim:api:messages:2.0:Error"}, "status": fmt.Sprint(status), "detail": detail,
	})
}

// zapLogger is the library's logger on zap.
type zapLogger struct{ log *zap.Logger }

func (l zapLogger) Error(args ...any) {
	if l.log != nil {
		l.log.Error("scim", zap.String("detail", fmt.Sprint(args...)))
	}
}

// storeError maps the use case's errors onto SCIM errors.
func storeError(err error, id string) error {
	switch {
	case errors.Is(err, ports.ErrNotFound):
		return scimerrors.ScimErrorResourceNotFound(id)
	case errors.Is(err, ports.ErrConflict):
		return scimerrors.ScimErrorUniqueness
	case errors.Is(err, context.DeadlineExceeded):
		return scimerrors.ScimError{Status: http.StatusServiceUnavailable, Detail: "the request took too long"}
	default:
		return err
	}
}
