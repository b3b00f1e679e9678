package vertex_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/vertex"
)

// tokenEndpoint is a fake of Google's OAuth token endpoint: it checks the
// JWT bearer assertion of a service account against the key's public half
// and answers a numbered access token.
type tokenEndpoint struct {
	*httptest.Server
	pub       *rsa.PublicKey
	mu        sync.Mutex
	issued    int
	claims    []map[string]any
	expiresIn int
	refuse    bool
}

func newTokenEndpoint(pub *rsa.PublicKey) *tokenEndpoint {
	e := &tokenEndpoint{pub: pub, expiresIn: 3600}
	e.Server = httptest.NewServer(http.HandlerFunc(e.serve))
	DeferCleanup(e.Close)
	return e
}

func (e *tokenEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	defer GinkgoRecover()
	raw, _ := io.ReadAll(r.Body)
	form, err := url.ParseQuery(string(raw))
	Expect(err).NotTo(HaveOccurred())
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.refuse {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`)
		return
	}
	Expect(form.Get("grant_type")).To(Equal("urn:ietf:params:oauth:grant-type:jwt-bearer"))
	parts := strings.Split(form.Get("assertion"), ".")
	Expect(parts).To(HaveLen(3))
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	Expect(err).NotTo(HaveOccurred())
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	Expect(rsa.VerifyPKCS1v15(e.pub, crypto.SHA256, sum[:], sig)).To(Succeed(), "the assertion is signed with the service account's key")
	header, claims := map[string]any{}, map[string]any{}
	b, _ := base64.RawURLEncoding.DecodeString(parts[0])
	Expect(json.Unmarshal(b, &header)).To(Succeed())
	Expect(header["alg"]).To(Equal("RS256"))
	Expect(header["kid"]).To(Equal("key-id-1"))
	b, _ = base64.RawURLEncoding.DecodeString(parts[1])
	Expect(json.Unmarshal(b, &claims)).To(Succeed())
	e.claims = append(e.claims, claims)
	e.issued++
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"access_token":"ya29.fake-%d","token_type":"Bearer","expires_in":%d}`, e.issued, e.expiresIn)
}

func (e *tokenEndpoint) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.issued
}

// serviceAccountKey is a key file of the shape Google issues, for a fresh
// RSA key, with its token_uri at tokenURI.
func serviceAccountKey(tokenURI string) ([]byte, *rsa.PrivateKey) {
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	Expect(err).NotTo(HaveOccurred())
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	Expect(err).NotTo(HaveOccurred())
	key, err := json.Marshal(map[string]string{
		"type":           "service_account",
		"project_id":     "acme-vertex",
		"private_key_id": "key-id-1",
		"private_key":    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email":   "keygate@acme-vertex.iam.gserviceaccount.com",
		"client_id":      "1234567890",
		"token_uri":      tokenURI,
	})
	Expect(err).NotTo(HaveOccurred())
	return key, priv
}

var _ = Describe("Google credentials (vertex.Tokens)", func() {
	var (
		endpoint *tokenEndpoint
		key      []byte
		now      time.Time
		clock    func() time.Time
	)
	BeforeEach(func() {
		endpoint = newTokenEndpoint(nil)
		var priv *rsa.PrivateKey
		key, priv = serviceAccountKey(endpoint.URL + "/token")
		endpoint.pub = &priv.PublicKey
		now = time.Now()
		clock = func() time.Time { return now }
	})

	It("signs a JWT assertion with the service account's key, exchanges it at the key's token endpoint and uses the token until shortly before it expires", func() {
		ts, err := vertex.ServiceAccount(key, vertex.TokenOptions{Now: clock})
		Expect(err).NotTo(HaveOccurred())
		tok, err := ts.Token(context.Background())
		Expect(err).NotTo(HaveOccurred())
		Expect(tok).To(Equal("ya29.fake-1"))
		Expect(endpoint.claims[0]).To(HaveKeyWithValue("iss", "keygate@acme-vertex.iam.gserviceaccount.com"))
		Expect(endpoint.claims[0]).To(HaveKeyWithValue("scope", vertex.Scope))
		Expect(endpoint.claims[0]).To(HaveKeyWithValue("aud", endpoint.URL+"/token"))

		now = now.Add(50 * time.Minute)
		Expect(ts.Token(context.Background())).To(Equal("ya29.fake-1"), "an hour's token is good after 50 minutes")
		Expect(endpoint.count()).To(Equal(1))
	})

	It("refreshes a token before it expires, not after a call failed on it", func() {
		ts, err := vertex.ServiceAccount(key, vertex.TokenOptions{Now: clock})
		Expect(err).NotTo(HaveOccurred())
		Expect(ts.Token(context.Background())).To(Equal("ya29.fake-1"))
		now = now.Add(time.Hour - vertex.RefreshMargin + time.Second)
		Expect(ts.Token(context.Background())).To(Equal("ya29.fake-2"), "within the margin of its expiry the token is replaced")
		now = now.Add(2 * time.Hour)
		Expect(ts.Token(context.Background())).To(Equal("ya29.fake-3"), "an expired token is never handed out")
		Expect(endpoint.count()).To(Equal(3))
	})

	It("fetches once for callers asking at the same time", func() {
		ts, err := vertex.ServiceAccount(key, vertex.TokenOptions{Now: clock})
		Expect(err).NotTo(HaveOccurred())
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				defer GinkgoRecover()
				Expect(ts.Token(context.Background())).To(Equal("ya29.fake-1"))
			})
		}
		wg.Wait()
		Expect(endpoint.count()).To(Equal(1))
	})

	It("sends the token endpoint's request with the client it is given (the outbound policy's)", func() {
		var asked []string
		client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
			asked = append(asked, r.URL.String())
			return http.DefaultTransport.RoundTrip(r)
		})}
		ts, err := vertex.ServiceAccount(key, vertex.TokenOptions{HTTP: client})
		Expect(err).NotTo(HaveOccurred())
		Expect(ts.Token(context.Background())).To(Equal("ya29.fake-1"))
		Expect(asked).To(Equal([]string{endpoint.URL + "/token"}))
	})

	It("reports a refusal of the token endpoint without the key, and tries again on the next call", func() {
		endpoint.refuse = true
		ts, err := vertex.ServiceAccount(key, vertex.TokenOptions{Now: clock})
		Expect(err).NotTo(HaveOccurred())
		_, err = ts.Token(context.Background())
		Expect(err).To(MatchError(vertex.ErrCredentials))
		Expect(err.Error()).To(ContainSubstring("invalid_grant"))
		Expect(err.Error()).NotTo(ContainSubstring("PRIVATE KEY"))
		Expect(err.Error()).NotTo(ContainSubstring("assertion"))
		endpoint.refuse = false
		Expect(ts.Token(context.Background())).To(Equal("ya29.fake-1"))
	})

	DescribeTable("refuses a key that is not a service account's, without quoting it",
		func(key string, says string) {
			_, err := vertex.ServiceAccount([]byte(key), vertex.TokenOptions{})
			Expect(err).To(MatchError(vertex.ErrCredentials))
			Expect(err.Error()).To(ContainSubstring(says))
			Expect(err.Error()).NotTo(ContainSubstring("s3cret"))
		},
		Entry("not JSON", `s3cret-not-json`, "not JSON"),
		Entry("another type", `{"type":"authorized_user","refresh_token":"s3cret"}`, `"authorized_user"`),
		Entry("no private key", `{"type":"service_account","client_email":"a@b.iam.gserviceaccount.com","private_key_id":"s3cret"}`, "private_key"),
	)

	It("finds the application-default credentials named by GOOGLE_APPLICATION_CREDENTIALS on the first call, not before", func() {
		path := GinkgoT().TempDir() + "/adc.json"
		GinkgoT().Setenv("GOOGLE_APPLICATION_CREDENTIALS", path)
		ts := vertex.Default(vertex.TokenOptions{Now: clock})
		Expect(writeFile(path, key)).To(Succeed(), "the file is written after Default returned")
		Expect(ts.Token(context.Background())).To(Equal("ya29.fake-1"))
		now = now.Add(time.Hour)
		Expect(ts.Token(context.Background())).To(Equal("ya29.fake-2"))
	})

	It("reads gcloud's application-default login under CLOUDSDK_CONFIG when GOOGLE_APPLICATION_CREDENTIALS is not set", func() {
		dir := GinkgoT().TempDir()
		GinkgoT().Setenv("GOOGLE_APPLICATION_CREDENTIALS", "")
		GinkgoT().Setenv("CLOUDSDK_CONFIG", dir)
		ts := vertex.Default(vertex.TokenOptions{Now: clock})
		_, err := ts.Token(context.Background())
		Expect(err).To(MatchError(vertex.ErrCredentials), "no file yet: refused, and no metadata server probed")
		Expect(writeFile(dir+"/application_default_credentials.json", key)).To(Succeed())
		Expect(ts.Token(context.Background())).To(Equal("ya29.fake-1"))
	})

	It("asks the metadata server of a Google Cloud machine for its service account's token, through the one client given for it", func() {
		var asked []*http.Request
		meta := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			asked = append(asked, r)
			fmt.Fprintf(w, `{"access_token":"ya29.instance-%d","expires_in":3599,"token_type":"Bearer"}`, len(asked))
		}))
		DeferCleanup(meta.Close)
		target, err := url.Parse(meta.URL)
		Expect(err).NotTo(HaveOccurred())
		client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
			Expect(r.URL.Host).To(Equal("169.254.169.254"))
			r.URL.Scheme, r.URL.Host = target.Scheme, target.Host
			return http.DefaultTransport.RoundTrip(r)
		})}
		ts := vertex.Instance(vertex.TokenOptions{HTTP: client, Now: clock})
		Expect(ts.Token(context.Background())).To(Equal("ya29.instance-1"))
		Expect(ts.Token(context.Background())).To(Equal("ya29.instance-1"))
		Expect(asked).To(HaveLen(1))
		Expect(asked[0].Header.Get("Metadata-Flavor")).To(Equal("Google"))
		Expect(asked[0].URL.Path).To(Equal("/computeMetadata/v1/instance/service-accounts/default/token"))
		Expect(asked[0].URL.Query().Get("scopes")).To(Equal(vertex.Scope))
		now = now.Add(time.Hour)
		Expect(ts.Token(context.Background())).To(Equal("ya29.instance-2"))

		_, err = vertex.Instance(vertex.TokenOptions{}).Token(context.Background())
		Expect(err).To(MatchError(vertex.ErrCredentials), "without the metadata client there is no instance source")
	})
})

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
