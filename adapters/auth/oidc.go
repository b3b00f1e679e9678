package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"go.uber.org/zap"
	"golang.org/x/oauth2"

	"keygate/domain/access"
)

// flowTTL bounds the time between starting a login and its callback.
const flowTTL = 10 * time.Minute

// oidcFlow holds what the authorization code flow needs.
type oidcFlow struct {
	oauth    oauth2.Config
	verifier *oidc.IDTokenVerifier
	// client talks to the provider's token endpoint; oauth2 takes it from
	// the request's context (see exchange). The verifier's key set keeps
	// its own copy, given to it by discovery.
	client *http.Client
}

// flowData is the sealed content of the flow cookie.
type flowData struct {
	State    string `json:"s"`
	Verifier string `json:"v"`
	Nonce    string `json:"n"`
	Next     string `json:"x"`
	Expires  int64  `json:"e"`
}

func newOIDCFlow(ctx context.Context, cfg Config) (*oidcFlow, error) {
	client := &http.Client{Timeout: 15 * time.Second, Transport: boundedBodies{next: http.DefaultTransport}}
	discover, cancel := context.WithTimeout(oidc.ClientContext(ctx, client), 15*time.Second)
	defer cancel()
	provider, err := oidc.NewProvider(discover, cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("discover oidc issuer %s: %w", cfg.Issuer, err)
	}
	return &oidcFlow{
		oauth: oauth2.Config{
			ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, RedirectURL: cfg.RedirectURL,
			Endpoint: provider.Endpoint(), Scopes: cfg.Scopes,
		},
		verifier: provider.Verifier(&oidc.Config{ClientID: cfg.ClientID}),
		client:   client,
	}, nil
}

// maxProviderBody bounds what Keygate reads of one answer of the OIDC
// provider (discovery document, key set, token response): go-oidc reads a
// discovery document and a key set whole.
const maxProviderBody = 1 << 20

// boundedBodies is a transport whose answers end after maxProviderBody
// bytes, with an error rather than a silently short document.
type boundedBodies struct{ next http.RoundTripper }

func (b boundedBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = &boundedBody{ReadCloser: resp.Body, left: maxProviderBody}
	return resp, nil
}

type boundedBody struct {
	io.ReadCloser
	left int64
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("oidc provider answer exceeds %d bytes", maxProviderBody)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// login starts the authorization code flow with PKCE: state, verifier and
// nonce go into a sealed, short-lived cookie, and the browser goes to the
// provider.
func (g *Gate) login(w http.ResponseWriter, r *http.Request) {
	f := flowData{
		State: randomString(), Verifier: oauth2.GenerateVerifier(), Nonce: randomString(),
		Next: localPath(r.URL.Query().Get("next")), Expires: g.cookies.now().Add(flowTTL).Unix(),
	}
	v, err := g.cookies.seal(f)
	if err != nil {
		g.log.Error("seal login state", zap.Error(err))
		http.Error(w, "sign-in is unavailable", http.StatusInternalServerError)
		return
	}
	setCookie(w, r, flowCookie, v, flowTTL)
	http.Redirect(w, r, g.oidc.oauth.AuthCodeURL(f.State, oauth2.S256ChallengeOption(f.Verifier), oidc.Nonce(f.Nonce)), http.StatusFound)
}

// callback finishes the flow: it checks the state, exchanges the code with
// the PKCE verifier, verifies the ID token and its nonce, maps the claims
// to a principal and sets the session cookie.
func (g *Gate) callback(w http.ResponseWriter, r *http.Request) {
	var f flowData
	q := r.URL.Query()
	if err := g.cookies.open(r, flowCookie, &f); err != nil || f.State == "" || q.Get("state") != f.State ||
		g.cookies.now().Unix() >= f.Expires {
		http.Error(w, "sign-in expired or was started elsewhere; start again at /auth/login", http.StatusBadRequest)
		return
	}
	setCookie(w, r, flowCookie, "", -1)
	if e := q.Get("error"); e != "" {
		g.log.Info("identity provider refused sign-in", zap.String("error", e))
		http.Error(w, "the identity provider refused the sign-in", http.StatusForbidden)
		return
	}
	p, err := g.exchange(r.Context(), q.Get("code"), f)
	if err != nil {
		g.log.Info("sign-in failed", zap.Error(err))
		http.Error(w, "sign-in failed", http.StatusForbidden)
		return
	}
	v, err := g.cookies.seal(sessionData{
		ID: randomString(), UserID: p.UserID, Name: p.Name, Role: string(p.Role), Expires: g.cookies.now().Add(g.cfg.SessionTTL).Unix(),
	})
	if err != nil {
		g.log.Error("seal session", zap.Error(err))
		http.Error(w, "sign-in is unavailable", http.StatusInternalServerError)
		return
	}
	setCookie(w, r, SessionCookie, v, g.cfg.SessionTTL)
	g.log.Info("signed in", zap.String("user_id", p.UserID), zap.String("role", string(p.Role)))
	http.Redirect(w, r, f.Next, http.StatusFound)
}

func (g *Gate) exchange(ctx context.Context, code string, f flowData) (access.Principal, error) {
	ctx, cancel := context.WithTimeout(context.WithValue(ctx, oauth2.HTTPClient, g.oidc.client), 15*time.Second)
	defer cancel()
	tok, err := g.oidc.oauth.Exchange(ctx, code, oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return access.Principal{}, fmt.Errorf("exchange code: %w", err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return access.Principal{}, fmt.Errorf("token response has no id_token")
	}
	idt, err := g.oidc.verifier.Verify(ctx, raw)
	if err != nil {
		return access.Principal{}, fmt.Errorf("verify id token: %w", err)
	}
	if idt.Nonce != f.Nonce {
		return access.Principal{}, fmt.Errorf("id token nonce does not match")
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return access.Principal{}, fmt.Errorf("read id token claims: %w", err)
	}
	return principalFromClaims(claims, g.cfg, func(user string, groups []string) { g.members.record(ctx, user, groups) })
}

// logout revokes the session (see RevokeSessionsWith) and clears its
// cookie. The provider's own session is left
// alone: signing out of Keygate must not sign the user out of everything.
func (g *Gate) logout(w http.ResponseWriter, r *http.Request) {
	if _, s, err := g.cookies.session(r); err == nil && g.revoked != nil {
		if err := g.revoked.RevokeSession(r.Context(), s.ID, time.Unix(s.Expires, 0)); err != nil {
			g.log.Error("revoke session", zap.Error(err))
			http.Error(w, "cannot sign out now; try again", http.StatusServiceUnavailable)
			return
		}
	}
	setCookie(w, r, SessionCookie, "", -1)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = fmt.Fprint(w, `<!doctype html><title>Signed out</title><p>Signed out of Keygate. <a href="/auth/login">Sign in again</a></p>`)
}

func randomString() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// localPath keeps a post-login redirect on this site: an absolute path
// only, never a scheme-relative or absolute URL.
func localPath(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	return next
}
