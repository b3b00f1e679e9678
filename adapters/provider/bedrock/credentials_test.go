package bedrock_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/bedrock"
	"keygate/adapters/provider/protocol"
	"keygate/domain/llm"
	"keygate/ports"
)

// fakeSTS answers AssumeRoleWithWebIdentity with numbered credentials that
// expire after ttl, recording the forms it was sent.
type fakeSTS struct {
	*httptest.Server
	mu    sync.Mutex
	forms []url.Values
	ttl   time.Duration
}

func newFakeSTS(ttl time.Duration) *fakeSTS {
	f := &fakeSTS{ttl: ttl}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(body))
		f.mu.Lock()
		f.forms = append(f.forms, form)
		n := len(f.forms)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "text/xml")
		fmt.Fprintf(w, `<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <Credentials>
      <AccessKeyId>ASIASTSFAKE00000000%d</AccessKeyId>
      <SecretAccessKey>stsSecret%d/abcdefghijklmnopqrstuvwxyz0123</SecretAccessKey>
      <SessionToken>stsSessionToken%d</SessionToken>
      <Expiration>%s</Expiration>
    </Credentials>
    <SubjectFromWebIdentityToken>system:serviceaccount:keygate:keygate</SubjectFromWebIdentityToken>
    <AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/keygate/keygate</Arn><AssumedRoleId>AROAFAKE:keygate</AssumedRoleId></AssumedRoleUser>
  </AssumeRoleWithWebIdentityResult>
  <ResponseMetadata><RequestId>req-%d</RequestId></ResponseMetadata>
</AssumeRoleWithWebIdentityResponse>`, n, n, n, time.Now().Add(f.ttl).UTC().Format(time.RFC3339), n)
	}))
	return f
}

func (f *fakeSTS) calls() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]url.Values(nil), f.forms...)
}

// hermetic keeps the SDK off this machine's AWS files, environment and
// metadata service.
func hermetic() {
	dir := GinkgoT().TempDir()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
		"AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_CA_BUNDLE"} {
		GinkgoT().Setenv(k, "")
	}
	GinkgoT().Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	GinkgoT().Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	GinkgoT().Setenv("AWS_EC2_METADATA_DISABLED", "true")
}

// signed signs a Converse request with c and returns it.
func signed(c protocol.Credentials) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodPost, "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream",
		strings.NewReader(`{"messages":[]}`))
	Expect(err).NotTo(HaveOccurred())
	return req, bedrock.Converse().Sign(context.Background(), req, []byte(`{"messages":[]}`), c)
}

var _ = Describe("Bedrock credentials", func() {
	BeforeEach(hermetic)

	It("signs with a static access key from the pool, the secret nowhere in the request", func() {
		req, err := signed(protocol.Credentials{Key: "AKIASTATIC0000000001:staticSecret/abcdefghijklmnopqrstuvwxyz",
			Cloud: ports.CloudSettings{Region: "eu-central-1"}, HTTP: http.DefaultClient})
		Expect(err).NotTo(HaveOccurred())
		auth := req.Header.Get("Authorization")
		Expect(auth).To(HavePrefix("AWS4-HMAC-SHA256 Credential=AKIASTATIC0000000001/"))
		Expect(auth).To(ContainSubstring("/eu-central-1/bedrock/aws4_request"))
		Expect(req.Header.Get("X-Amz-Security-Token")).To(BeEmpty())
		for _, vs := range req.Header {
			for _, v := range vs {
				Expect(v).NotTo(ContainSubstring("staticSecret"))
			}
		}
	})

	It("refuses a malformed key without echoing it, and a provider without a region", func() {
		_, err := signed(protocol.Credentials{Key: "justOneLongSecretValue", Cloud: ports.CloudSettings{Region: "us-east-1"}})
		var perr *llm.ProviderError
		Expect(errors.As(err, &perr)).To(BeTrue())
		Expect(perr.Class).To(Equal(llm.ErrorBadRequest))
		Expect(perr.Message).To(ContainSubstring("ACCESS_KEY_ID:SECRET_ACCESS_KEY"))
		Expect(perr.Message).NotTo(ContainSubstring("justOneLongSecretValue"))
		_, err = signed(protocol.Credentials{Key: "AKIA0:secret"})
		Expect(errors.As(err, &perr)).To(BeTrue())
		Expect(perr.Message).To(ContainSubstring("region"))
	})

	Describe("from a web identity token file, exchanged at STS", func() {
		var (
			sts   *fakeSTS
			creds protocol.Credentials
		)
		setup := func(ttl time.Duration) {
			sts = newFakeSTS(ttl)
			DeferCleanup(sts.Close)
			GinkgoT().Setenv("AWS_ENDPOINT_URL_STS", sts.URL)
			token := filepath.Join(GinkgoT().TempDir(), "token")
			Expect(os.WriteFile(token, []byte("eyJhbGciOiJSUzI1NiJ9.k8s-projected-token"), 0o600)).To(Succeed())
			creds = protocol.Credentials{HTTP: sts.Client(), Cloud: ports.CloudSettings{Region: "us-west-2",
				Source: ports.CredentialWebIdentity, RoleARN: "arn:aws:iam::123456789012:role/keygate", WebIdentityTokenFile: token}}
		}

		It("signs with the role's temporary credentials and session token, and reuses them while they are fresh", func() {
			setup(time.Hour)
			req, err := signed(creds)
			Expect(err).NotTo(HaveOccurred())
			Expect(req.Header.Get("Authorization")).To(HavePrefix("AWS4-HMAC-SHA256 Credential=ASIASTSFAKE000000001/"))
			Expect(req.Header.Get("X-Amz-Security-Token")).To(Equal("stsSessionToken1"))
			calls := sts.calls()
			Expect(calls).To(HaveLen(1))
			Expect(calls[0].Get("Action")).To(Equal("AssumeRoleWithWebIdentity"))
			Expect(calls[0].Get("RoleArn")).To(Equal("arn:aws:iam::123456789012:role/keygate"))
			Expect(calls[0].Get("WebIdentityToken")).To(Equal("eyJhbGciOiJSUzI1NiJ9.k8s-projected-token"))
			_, err = signed(creds)
			Expect(err).NotTo(HaveOccurred())
			Expect(sts.calls()).To(HaveLen(1), "fresh credentials are cached")
		})

		It("fetches new credentials once the cached ones are about to expire", func() {
			setup(time.Minute) // inside the five-minute refresh window
			_, err := signed(creds)
			Expect(err).NotTo(HaveOccurred())
			req, err := signed(creds)
			Expect(err).NotTo(HaveOccurred())
			Expect(sts.calls()).To(HaveLen(2))
			Expect(req.Header.Get("Authorization")).To(HavePrefix("AWS4-HMAC-SHA256 Credential=ASIASTSFAKE000000002/"))
			Expect(req.Header.Get("X-Amz-Security-Token")).To(Equal("stsSessionToken2"))
		})

		It("is an authorization failure naming the source, not a secret, when STS refuses", func() {
			setup(time.Hour)
			sts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(http.StatusForbidden)
				_, _ = io.WriteString(w, `<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>Not authorized to perform sts:AssumeRoleWithWebIdentity</Message></Error></ErrorResponse>`)
			})
			creds.Cloud.RoleARN = "arn:aws:iam::123456789012:role/other"
			_, err := signed(creds)
			var perr *llm.ProviderError
			Expect(errors.As(err, &perr)).To(BeTrue())
			Expect(perr.Class).To(Equal(llm.ErrorAuthorization))
			Expect(perr.Message).To(ContainSubstring("web_identity"))
			Expect(perr.Message).NotTo(ContainSubstring("k8s-projected-token"))
		})
	})

	It("takes the instance role only through the metadata client it is given", func() {
		_, err := signed(protocol.Credentials{HTTP: http.DefaultClient,
			Cloud: ports.CloudSettings{Region: "us-east-1", Source: ports.CredentialInstanceRole}})
		var perr *llm.ProviderError
		Expect(errors.As(err, &perr)).To(BeTrue())
		Expect(perr.Message).To(ContainSubstring("metadata service"))

		var paths []string
		imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			paths = append(paths, r.Method+" "+r.URL.Path)
			switch r.URL.Path {
			case "/latest/api/token":
				_, _ = io.WriteString(w, "imds-session-token")
			case "/latest/meta-data/iam/security-credentials/":
				_, _ = io.WriteString(w, "keygate-role")
			case "/latest/meta-data/iam/security-credentials/keygate-role":
				fmt.Fprintf(w, `{"Code":"Success","Type":"AWS-HMAC","AccessKeyId":"ASIAIMDSFAKE00000001","SecretAccessKey":"imdsSecret/abc","Token":"imdsToken","Expiration":%q}`,
					time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
			default:
				http.NotFound(w, r)
			}
		}))
		DeferCleanup(imds.Close)
		to, _ := url.Parse(imds.URL)
		metadata := &http.Client{Transport: redirectTo{to}}
		req, err := signed(protocol.Credentials{HTTP: http.DefaultClient, Metadata: metadata,
			Cloud: ports.CloudSettings{Region: "us-east-1", Source: ports.CredentialInstanceRole}})
		Expect(err).NotTo(HaveOccurred())
		Expect(req.Header.Get("Authorization")).To(HavePrefix("AWS4-HMAC-SHA256 Credential=ASIAIMDSFAKE00000001/"))
		Expect(req.Header.Get("X-Amz-Security-Token")).To(Equal("imdsToken"))
		Expect(paths).To(ContainElement("PUT /latest/api/token"))
	})
})

// redirectTo sends every request to the fake metadata service in place of
// 169.254.169.254, as the egress policy's metadata client would dial it.
type redirectTo struct{ u *url.URL }

func (r redirectTo) RoundTrip(req *http.Request) (*http.Response, error) {
	u := r.u
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = u.Scheme, u.Host
	return http.DefaultTransport.RoundTrip(req)
}
