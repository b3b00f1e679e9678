package auth_test

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// fakeIDP is an OpenID provider for specs: discovery, JWKS, an authorize
// endpoint that approves at once (as if the user signed in), and a token
// endpoint that checks the PKCE verifier and issues an RS256 ID token
// carrying Claims.
type fakeIDP struct {
	*httptest.Server
	key *rsa.PrivateKey

	mu sync.Mutex
	// Claims go into the next ID token (iss, aud, exp, iat, nonce added).
	Claims map[string]any
	// Refuse makes the authorize endpoint answer error=access_denied.
	Refuse bool
	// WrongNonce makes the ID token carry another nonce.
	WrongNonce bool
	// Challenges records the PKCE code_challenge_method of each authorize.
	Methods []string
	codes   map[string]grant
}

type grant struct{ challenge, nonce, clientID string }

func newFakeIDP() *fakeIDP {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	Expect(err).NotTo(HaveOccurred())
	f := &fakeIDP{key: key, codes: map[string]grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", f.discovery)
	mux.HandleFunc("GET /jwks", f.jwks)
	mux.HandleFunc("GET /authorize", f.authorize)
	mux.HandleFunc("POST /token", f.token)
	f.Server = httptest.NewServer(mux)
	DeferCleanup(f.Close)
	return f
}

func (f *fakeIDP) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{
		"issuer": f.URL, "authorization_endpoint": f.URL + "/authorize", "token_endpoint": f.URL + "/token",
		"jwks_uri": f.URL + "/jwks", "id_token_signing_alg_values_supported": []string{"RS256"},
		"response_types_supported": []string{"code"}, "subject_types_supported": []string{"public"},
	})
}

func (f *fakeIDP) jwks(w http.ResponseWriter, _ *http.Request) {
	pub := f.key.PublicKey
	writeJSON(w, map[string]any{"keys": []map[string]any{{
		"kty": "RSA", "alg": "RS256", "use": "sig", "kid": "k1",
		"n": b64(pub.N.Bytes()), "e": b64(big.NewInt(int64(pub.E)).Bytes()),
	}}})
}

func (f *fakeIDP) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	back, _ := url.Parse(q.Get("redirect_uri"))
	out := url.Values{"state": {q.Get("state")}}
	f.mu.Lock()
	f.Methods = append(f.Methods, q.Get("code_challenge_method"))
	if f.Refuse {
		out.Set("error", "access_denied")
	} else {
		code := b64([]byte(q.Get("state")))[:16]
		f.codes[code] = grant{challenge: q.Get("code_challenge"), nonce: q.Get("nonce"), clientID: q.Get("client_id")}
		out.Set("code", code)
	}
	f.mu.Unlock()
	back.RawQuery = out.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (f *fakeIDP) token(w http.ResponseWriter, r *http.Request) {
	Expect(r.ParseForm()).To(Succeed())
	f.mu.Lock()
	defer f.mu.Unlock()
	g, ok := f.codes[r.PostForm.Get("code")]
	delete(f.codes, r.PostForm.Get("code"))
	sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
	if !ok || b64(sum[:]) != g.challenge {
		w.WriteHeader(http.StatusBadRequest)
		writeJSON(w, map[string]any{"error": "invalid_grant"})
		return
	}
	claims := map[string]any{"iss": f.URL, "aud": g.clientID, "iat": time.Now().Unix(),
		"exp": time.Now().Add(time.Hour).Unix(), "nonce": g.nonce}
	if f.WrongNonce {
		claims["nonce"] = "forged"
	}
	for k, v := range f.Claims {
		claims[k] = v
	}
	writeJSON(w, map[string]any{"access_token": "at", "token_type": "Bearer", "expires_in": 3600, "id_token": f.sign(claims)})
}

// sign returns a compact RS256 JWT.
func (f *fakeIDP) sign(claims map[string]any) string {
	header, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "JWT", "kid": "k1"})
	payload, _ := json.Marshal(claims)
	input := b64(header) + "." + b64(payload)
	sum := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, f.key, crypto.SHA256, sum[:])
	Expect(err).NotTo(HaveOccurred())
	return input + "." + b64(sig)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	Expect(json.NewEncoder(w).Encode(v)).To(Succeed())
}
