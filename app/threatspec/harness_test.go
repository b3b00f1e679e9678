package threatspec_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path/filepath"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/auth"
	"keygate/adapters/pgtest"
	"keygate/adapters/provider/providertest"
	"keygate/app/apptest"
	"keygate/app/config"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// The trusted-header sign-in: an authenticating proxy on loopback names the
// user and the groups; kg-admins administers, everyone else is a member.
// Loopback is trusted on purpose: it is the sidecar deployment, and the one
// where Keygate's own outbound connections also come from a trusted address.
const (
	userHeader   = "X-Test-User"
	nameHeader   = "X-Test-Name"
	groupsHeader = "X-Test-Groups"
	adminGroup   = "kg-admins"
	cursorAPI    = "https://api2.cursor.sh"
)

// user is someone the authenticating proxy signs in.
type user struct{ id, groups string }

var (
	root    = user{id: "root@corp.test", groups: adminGroup}
	mallory = user{id: "mallory@corp.test", groups: "staff"}
)

// stack is a running company-mode Keygate on PostgreSQL: the HTTP listener
// (console, control API, account routes) and the Cursor proxy.
type stack struct {
	*apptest.Keygate
	databaseURL   string
	databaseAddr  string
	provider      *providertest.Server
	modelID       string
	memberToken   string
	memberTokenID string
}

// companyAuth is the trusted-header sign-in of the specs: the
// authenticating proxy on loopback names the user, their display name and
// their groups.
func companyAuth() config.Auth {
	return config.Auth{Mode: string(auth.ModeHeader), UserHeader: userHeader, NameHeader: nameHeader, GroupsHeader: groupsHeader,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")},
		AdminGroups:    []string{adminGroup}}
}

// startKeygate runs the real composition root in trusted-header mode over a
// fresh PostgreSQL database, with a fake provider an administrator
// configures as a model, and a personal gateway token for mallory. Cursor's
// own service sits behind an outbound proxy that refuses every connection,
// so nothing leaves the machine. tune adjusts the configuration before it is
// validated.
func startKeygate(tune ...func(*config.Config)) *stack {
	GinkgoHelper()

	db, err := pgtest.New(context.Background())
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(db.Close)
	dbURL, err := url.Parse(db.DSN)
	Expect(err).NotTo(HaveOccurred())

	provider := providertest.NewServer()
	DeferCleanup(provider.Close)

	cfg := config.Default()
	cfg.Auth = companyAuth()
	cfg.DataDir, cfg.Listen, cfg.ProxyListen = filepath.Join(GinkgoT().TempDir(), "data"), apptest.FreeAddr(), apptest.FreeAddr()
	// One process on the database: its secret key and CA may be the ones
	// generated in its data directory (Threat 8 runs two replicas).
	cfg.DatabaseURL, cfg.SingleReplica = db.DSN, true
	cfg.LogFormat, cfg.LogLevel = "json", "error"
	cfg.OutboundProxy = "http://127.0.0.1:1"
	allowEgress(providerAddr(provider))(&cfg)
	for _, t := range tune {
		t(&cfg)
	}
	s := &stack{Keygate: apptest.Start(cfg), databaseURL: db.DSN, databaseAddr: dbURL.Host, provider: provider}

	var created controlv1.CreateModelResponse
	s.must(root, controlv1connect.ModelServiceCreateModelProcedure, &controlv1.CreateModelRequest{
		Settings: &controlv1.ModelSettings{DisplayName: "Fake GPT", ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT,
			BaseUrl: provider.URL, ModelId: "fake-gpt", SupportsTools: true},
		ApiKey: companyKey, Enabled: true,
	}, &created)
	s.modelID = created.GetModel().GetId()
	Expect(s.modelID).NotTo(BeEmpty())
	s.memberTokenID, s.memberToken = s.newToken(mallory, "mallory's laptop")
	return s
}

// companyKey is the provider key the administrator stored: it must never
// reach anyone but the provider it was saved for.
const companyKey = "sk-company-secret-0123456789abcdef"

// providerAddr is the fake provider's host:port, the one private address
// the operator allow-lists.
func providerAddr(p *providertest.Server) string { return p.Listener.Addr().String() }

// call invokes a control procedure as u with the Connect JSON protocol and
// returns the HTTP status and the raw answer; resp, when set, is filled
// from a 200 answer.
func (s *stack) call(u user, procedure string, req, resp proto.Message) (int, string) {
	GinkgoHelper()
	body := []byte("{}")
	if req != nil {
		var err error
		body, err = protojson.Marshal(req)
		Expect(err).NotTo(HaveOccurred())
	}
	status, raw := s.do(u, http.MethodPost, procedure, "application/json", body)
	if status == http.StatusOK && resp != nil {
		Expect(protojson.Unmarshal([]byte(raw), resp)).To(Succeed(), procedure)
	}
	return status, raw
}

// must is call that expects 200.
func (s *stack) must(u user, procedure string, req, resp proto.Message) string {
	GinkgoHelper()
	status, raw := s.call(u, procedure, req, resp)
	Expect(status).To(Equal(http.StatusOK), "%s as %s: %s", procedure, u.id, raw)
	return raw
}

// do sends one request to Keygate's HTTP listener as u, the way the
// authenticating proxy forwards it (no identity headers when u.id is empty).
func (s *stack) do(u user, method, path, contentType string, body []byte) (int, string) {
	GinkgoHelper()
	req, err := http.NewRequest(method, s.Base+path, bytes.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if u.id != "" {
		req.Header.Set(userHeader, u.id)
		req.Header.Set(groupsHeader, u.groups)
	}
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp.StatusCode, string(raw)
}

// newToken creates a personal gateway token for u and returns its id and
// text.
func (s *stack) newToken(u user, name string) (string, string) {
	GinkgoHelper()
	status, raw := s.do(u, http.MethodPost, "/auth/tokens", "application/json", []byte(`{"name":"`+name+`"}`))
	Expect(status).To(Equal(http.StatusCreated), raw)
	var out struct {
		Token struct {
			ID string `json:"id"`
		} `json:"token"`
		Secret string `json:"secret"`
	}
	Expect(json.Unmarshal([]byte(raw), &out)).To(Succeed())
	return out.Token.ID, out.Secret
}

// proxyConn opens a raw connection to the proxy, sends head (a request line
// and headers, without the blank line that ends them) with mallory's token
// as Proxy-Authorization, and returns the connection, its reader and the
// proxy's answer.
func (s *stack) proxyConn(head string) (net.Conn, *bufio.Reader, *http.Response) {
	GinkgoHelper()
	conn, err := net.DialTimeout("tcp", s.Proxy, 5*time.Second)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(conn.Close)
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	_, err = io.WriteString(conn, head+"Proxy-Authorization: "+basic(s.memberToken)+"\r\n\r\n")
	Expect(err).NotTo(HaveOccurred())
	br := bufio.NewReader(conn)
	method := http.MethodGet
	if len(head) > 7 && head[:7] == "CONNECT" {
		method = http.MethodConnect
	}
	resp, err := http.ReadResponse(br, &http.Request{Method: method})
	Expect(err).NotTo(HaveOccurred())
	return conn, br, resp
}

// connect asks the proxy, as mallory, for a tunnel to authority.
func (s *stack) connect(authority string) (net.Conn, *bufio.Reader, *http.Response) {
	GinkgoHelper()
	return s.proxyConn("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n")
}

func basic(token string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte("cursor:"+token))
}

// body reads what is left of resp's body, bounded.
func body(resp *http.Response) string {
	GinkgoHelper()
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return string(b)
}

// jsonBody is msg in the Connect JSON encoding, as a request body.
func jsonBody(msg proto.Message) io.Reader {
	GinkgoHelper()
	b, err := protojson.Marshal(msg)
	Expect(err).NotTo(HaveOccurred())
	return bytes.NewReader(b)
}

// allowEgress is the operator's allow-list entry for destinations a spec
// runs on loopback (fake providers), which company mode refuses otherwise.
func allowEgress(addrs ...string) func(*config.Config) {
	return func(c *config.Config) { c.EgressAllow = append(c.EgressAllow, addrs...) }
}

// asUser adds u's identity headers to every request, as the
// authenticating proxy in front of the console does.
type asUser struct {
	u    user
	next http.RoundTripper
}

func (a asUser) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(userHeader, a.u.id)
	r.Header.Set(groupsHeader, a.u.groups)
	return a.next.RoundTrip(r)
}

// models is the model service's Connect client, signed in as u (for the
// streamed connection test, which a plain POST cannot call).
func (s *stack) models(u user) controlv1connect.ModelServiceClient {
	return controlv1connect.NewModelServiceClient(&http.Client{Transport: asUser{u: u, next: http.DefaultTransport}}, s.Base)
}

// testModel runs a connection test as u and returns its last message's
// result, or the error that ended the stream.
func (s *stack) testModel(ctx context.Context, u user, id string) (*controlv1.TestResult, error) {
	GinkgoHelper()
	st, err := s.models(u).TestModel(ctx, connect.NewRequest(&controlv1.TestModelRequest{Id: id}))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var last *controlv1.TestResult
	for st.Receive() {
		if r := st.Msg().GetResult(); r != nil {
			last = r
		}
	}
	return last, st.Err()
}
