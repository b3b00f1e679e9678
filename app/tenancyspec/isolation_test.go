package tenancyspec_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.uber.org/zap"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"keygate/adapters/auth"
	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/frame"
	"keygate/adapters/cursor/transport"
	"keygate/adapters/cursor/unary"
	"keygate/adapters/provider/providertest"
	"keygate/app"
	"keygate/app/apptest"
	"keygate/app/company"
	"keygate/app/config"
	"keygate/app/memories"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/gen/cursor/agent/v1/agentv1connect"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// The trusted-header sign-in: an authenticating proxy on loopback names the
// user and the groups; kg-admins administers, everyone else is a member.
const (
	userHeader   = "X-Test-User"
	groupsHeader = "X-Test-Groups"
	adminGroup   = "kg-admins"
	cursorAPI    = "https://api2.cursor.sh"
)

// user is someone the authenticating proxy signs in.
type user struct{ id, groups string }

var (
	root = user{id: "root@corp.test", groups: adminGroup}
	// ada and bob are in different teams (groups an administrator marks).
	ada = user{id: "ada@corp.test", groups: "staff,team-ml"}
	bob = user{id: "bob@corp.test", groups: "staff,team-web"}
)

// adaMarker is in ada's workspace file, her prompt's tool result and her
// model's answer: it must never reach bob.
const adaMarker = "ORCHID-4242"

// tenant is what one member owns after their turn.
type tenant struct {
	user
	token, tokenID  string
	requestID, conv string
	callIDs         []string
	checkpoints     []string
	head            string
}

// secrets are the strings by which any of t's data would show in an
// answer to someone else.
func (t *tenant) secrets() []string {
	out := []string{t.id, t.token, t.tokenID, t.requestID, t.conv, adaMarker}
	out = append(out, t.callIDs...)
	return append(out, t.checkpoints...)
}

// expectNothingOf fails when answer reveals anything of t's; named are the
// ids the asker put in the request, which an error may echo back.
func expectNothingOf(t *tenant, answer, where string, named ...string) {
	GinkgoHelper()
	for _, s := range t.secrets() {
		if !slices.Contains(named, s) {
			Expect(answer).NotTo(ContainSubstring(s), "%s reveals %q", where, s)
		}
	}
}

// stack is a running Keygate in trusted-header mode and the fake provider
// its administrator configures models on.
type stack struct {
	*apptest.Keygate
	provider *providertest.Server
}

// signIn is the stack's trusted-header sign-in: the authenticating proxy
// on loopback names the user and their groups.
func signIn() config.Auth {
	return config.Auth{Mode: string(auth.ModeHeader), UserHeader: userHeader, GroupsHeader: groupsHeader,
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")},
		AdminGroups:    []string{adminGroup}}
}

// startKeygate runs the real composition root in trusted-header mode over a
// temporary SQLite data dir, with a fake provider for the models an
// administrator configures (allow-listed for the outbound policy). Cursor's
// own service sits behind an outbound proxy that refuses every connection,
// so nothing leaves the machine.
func startKeygate() *stack {
	provider := providertest.NewServer()
	DeferCleanup(provider.Close)

	cfg := config.Default()
	cfg.Auth = signIn()
	cfg.DataDir, cfg.Listen, cfg.ProxyListen = filepath.Join(GinkgoT().TempDir(), "data"), "127.0.0.1:0", apptest.FreeAddr()
	cfg.LogFormat, cfg.LogLevel = "json", "error"
	cfg.OutboundProxy = "http://127.0.0.1:1"
	// Appends and RunSSE on a request id that never opens (another user's
	// among them) end after this wait; short, so that specs try many.
	cfg.OpeningWait = 2 * time.Second
	// The fake provider stands for a self-hosted model on a private
	// address, which company mode reaches only when the operator allows it.
	cfg.EgressAllow = []string{provider.Listener.Addr().String()}
	return &stack{Keygate: apptest.Start(cfg), provider: provider}
}

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

// do sends one request to Keygate's HTTP listener as u (no identity
// headers when u.id is empty).
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

// tokenJSON is a personal token as the account routes show it.
type tokenJSON struct {
	ID        string `json:"id"`
	OwnerID   string `json:"ownerId"`
	RevokedAt string `json:"revokedAt"`
}

// newToken creates a personal gateway token for u and returns its id and
// text.
func (s *stack) newToken(u user, name string) (string, string) {
	GinkgoHelper()
	status, raw := s.do(u, http.MethodPost, "/auth/tokens", "application/json", []byte(`{"name":"`+name+`"}`))
	Expect(status).To(Equal(http.StatusCreated), raw)
	var out struct {
		Token  tokenJSON `json:"token"`
		Secret string    `json:"secret"`
	}
	Expect(json.Unmarshal([]byte(raw), &out)).To(Succeed())
	Expect(out.Token.OwnerID).To(Equal(u.id))
	return out.Token.ID, out.Secret
}

// tokens lists u's personal tokens (all=1 asks for everyone's).
func (s *stack) tokens(u user, query string) (int, []tokenJSON, string) {
	GinkgoHelper()
	status, raw := s.do(u, http.MethodGet, "/auth/tokens"+query, "", nil)
	var out struct {
		Tokens []tokenJSON `json:"tokens"`
	}
	if status == http.StatusOK {
		Expect(json.Unmarshal([]byte(raw), &out)).To(Succeed())
	}
	return status, out.Tokens, raw
}

// connectStatus sends a bare CONNECT for Cursor's API to the proxy with the
// given Proxy-Authorization (none when empty) and returns the answer.
func (s *stack) connectStatus(proxyAuth string) *http.Response {
	GinkgoHelper()
	conn, err := net.Dial("tcp", s.Proxy)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(conn.Close)
	req := "CONNECT api2.cursor.sh:443 HTTP/1.1\r\nHost: api2.cursor.sh:443\r\n"
	if proxyAuth != "" {
		req += "Proxy-Authorization: " + proxyAuth + "\r\n"
	}
	_, err = io.WriteString(conn, req+"\r\n")
	Expect(err).NotTo(HaveOccurred())
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: http.MethodConnect})
	Expect(err).NotTo(HaveOccurred())
	return resp
}

func basic(token string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte("cursor:"+token))
}

// unaryCall posts msg to a Cursor unary route the way the client does
// (Connect unary, binary proto) and returns the status and body.
func unaryCall(hc *http.Client, path string, msg proto.Message) (int, []byte) {
	GinkgoHelper()
	var body []byte
	if msg != nil {
		var err error
		body, err = proto.Marshal(msg)
		Expect(err).NotTo(HaveOccurred())
	}
	req, err := http.NewRequest(http.MethodPost, cursorAPI+path, bytes.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/proto")
	req.Header.Set("Connect-Protocol-Version", "1")
	resp, err := hc.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp.StatusCode, raw
}

// runWhole sends AgentService/Run with its whole uplink at once (the
// opening message, then the client's end of stream) and returns the
// response's protocol major version, its end-of-stream error and the
// messages before it. cursortest's streaming Run needs HTTP/2: over
// HTTP/1.1 the server drains an unread request body before answering.
func runWhole(hc *http.Client, requestID string, first *agentv1.AgentClientMessage) (int, *connect.Error, []*agentv1.AgentServerMessage) {
	GinkgoHelper()
	payload, err := proto.Marshal(first)
	Expect(err).NotTo(HaveOccurred())
	body := append(frame.Encode(0, payload), frame.Encode(frame.FlagEndStream, []byte("{}"))...)
	req, err := http.NewRequest(http.MethodPost, cursorAPI+agentv1connect.AgentServiceRunProcedure, bytes.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/connect+proto")
	req.Header.Set("Connect-Protocol-Version", "1")
	req.Header.Set("X-Request-Id", requestID)
	resp, err := hc.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	var msgs []*agentv1.AgentServerMessage
	frames := frame.NewReader(resp.Body, 0)
	for {
		f, err := frames.Next(context.Background())
		Expect(err).NotTo(HaveOccurred(), "the stream ends with its end-of-stream frame")
		if f.EndStream() {
			end, err := frame.ParseEnd(f.Payload)
			Expect(err).NotTo(HaveOccurred())
			return resp.ProtoMajor, end, msgs
		}
		m := &agentv1.AgentServerMessage{}
		Expect(proto.Unmarshal(f.Payload, m)).To(Succeed())
		msgs = append(msgs, m)
	}
}

// controlProcedures lists every procedure of every service in the control
// API's proto package, read from the registered descriptors, so that a new
// RPC (or a new service file) cannot escape the matrix.
func controlProcedures() []string {
	var out []string
	protoregistry.GlobalFiles.RangeFilesByPackage("keygate.control.v1", func(f protoreflect.FileDescriptor) bool {
		for i := range f.Services().Len() {
			svc := f.Services().Get(i)
			for j := range svc.Methods().Len() {
				out = append(out, "/"+string(svc.FullName())+"/"+string(svc.Methods().Get(j).Name()))
			}
		}
		return true
	})
	slices.Sort(out)
	return out
}

// noRuns stands in for the run layer when the Cursor adapter is built only
// to list its routes.
type noRuns struct{}

func (noRuns) ServeRun(context.Context, *transport.Turn) error { return nil }

// cursorRoutes lists every path the Cursor adapter serves (and so every
// path the proxy sends to Keygate rather than to Cursor).
func cursorRoutes() []string {
	// With a memory store, as the composition root always builds it, so
	// that the KnowledgeBase routes are mounted and classified.
	srv := cursor.New(noRuns{}, cursor.Options{Unary: unary.Options{Knowledge: memories.New(nil)}}, zap.NewNop())
	DeferCleanup(func() { _ = srv.Close(context.Background()) })
	return slices.Sorted(maps.Keys(srv.Routes()))
}

// accountRoutes lists the account routes the composition root mounts in
// the sign-in mode the stack runs with, from app.NewAccountRoutes itself
// (its use cases are not called while routes are listed).
func accountRoutes() []string {
	in := signIn()
	gate, err := auth.New(context.Background(), auth.Config{Mode: auth.Mode(in.Mode), UserHeader: in.UserHeader,
		GroupsHeader: in.GroupsHeader, TrustedProxies: in.TrustedProxies}, nil, zap.NewNop())
	Expect(err).NotTo(HaveOccurred())
	routes := app.NewAccountRoutes(config.Config{}, gate, &company.Tokens{}, &company.Auditor{}, app.NewMetrics())
	return slices.Sorted(maps.Keys(routes))
}

// row is one line of a matrix: the route or procedure, how it is
// classified and what is tried; try returns the raw answers bob got, which
// must hold nothing of ada's.
type row struct {
	path  string
	class string
	what  string
	try   func(ctx context.Context, path string) []string
}

// rows is one matrix, one row per route or procedure.
type rows []row

// paths returns the rows' routes or procedures, sorted.
func (rs rows) paths() []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.path
	}
	slices.Sort(out)
	return out
}

// entries turns the rows into table entries in path order, each named by
// its route, class and what is tried, so that `task specs` lists the rules.
func (rs rows) entries(decorators ...any) []TableEntry {
	sorted := slices.Clone(rs)
	slices.SortFunc(sorted, func(a, b row) int { return strings.Compare(a.path, b.path) })
	out := make([]TableEntry, len(sorted))
	for i, r := range sorted {
		args := append([]any{r}, decorators...)
		out[i] = Entry(fmt.Sprintf("%s [%s]: %s", r.path, r.class, r.what), args...)
	}
	return out
}

// tryRow tries one row and checks that no answer reveals anything of
// victim's.
func tryRow(ctx context.Context, r row, victim *tenant) {
	GinkgoHelper()
	for _, answer := range r.try(ctx, r.path) {
		expectNothingOf(victim, answer, r.path)
	}
}

func callIDs(calls []*controlv1.Call) []string {
	out := make([]string, 0, len(calls))
	for _, c := range calls {
		out = append(out, c.GetCallId())
	}
	return out
}

var _ = Describe("Tenant isolation in company mode, end to end", Ordered, func() {
	var (
		k       *stack
		modelID string
		// providerID and keyID are the model's provider and its key.
		providerID, keyID string
		adaT              *tenant
		bobT              *tenant
		adaHTTP           *http.Client
		bobHTTP           *http.Client
		// adaMemory is the id of the memory ada keeps in Cursor.
		adaMemory string
	)
	// adaMemories are ada's memories as she lists them in Cursor: the one
	// she added, with her marker.
	adaMemories := func() string {
		GinkgoHelper()
		status, raw := unaryCall(adaHTTP, aiserverv1connect.AiServiceKnowledgeBaseListProcedure, &aiserverv1.KnowledgeBaseListRequest{})
		Expect(status).To(Equal(http.StatusOK), string(raw))
		var list aiserverv1.KnowledgeBaseListResponse
		Expect(proto.Unmarshal(raw, &list)).To(Succeed())
		Expect(list.GetAllResults()).To(HaveLen(1))
		Expect(list.GetAllResults()[0].GetKnowledge()).To(ContainSubstring(adaMarker))
		return protojson.Format(&list)
	}

	// headOf is the head checkpoint and checkpoint count of a conversation,
	// as an administrator sees it.
	headOf := func(conv string) (string, int) {
		GinkgoHelper()
		var tree controlv1.GetBranchTreeResponse
		k.must(root, controlv1connect.ConversationServiceGetBranchTreeProcedure, &controlv1.GetBranchTreeRequest{ConversationId: conv}, &tree)
		return tree.GetHeadCheckpointId(), len(tree.GetCheckpoints())
	}

	// turn opens a Cursor turn through the proxy: RunSSE first, then the
	// opening BidiAppend, as the client does.
	turn := func(ctx context.Context, hc *http.Client, requestID, conv, text string, ws *cursortest.Workspace) *cursortest.Stream {
		GinkgoHelper()
		c := cursortest.NewClient(cursorAPI, hc, requestID)
		if ws != nil {
			c.OnMessage = ws.Handle
		}
		st, err := c.Subscribe(ctx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(st.Close)
		Expect(c.Send(ctx, cursortest.RunRequest(conv, modelID, text))).To(Succeed())
		return st
	}

	// appendsRefused has bob append a follow-up (seqno 1) to someone
	// else's request id: it must be answered exactly as one on a request
	// id nobody used, which waits for an opening append that never comes
	// (invalid_argument). It returns the answer's text.
	appendsRefused := func(ctx context.Context, requestID string) []string {
		GinkgoHelper()
		followUp := cursortest.NewClient(cursorAPI, bobHTTP, requestID).SendAt(ctx, 1, cursortest.FollowUp("bob was here"))
		Expect(connect.CodeOf(followUp)).To(Equal(connect.CodeInvalidArgument), "%v", followUp)
		nobody := cursortest.NewClient(cursorAPI, bobHTTP, fmt.Sprintf("req-nobody-%d", GinkgoRandomSeed())).
			SendAt(ctx, 1, cursortest.FollowUp("bob was here"))
		Expect(followUp.Error()).To(Equal(nobody.Error()))
		return []string{followUp.Error()}
	}

	// subscribeRefused has bob open RunSSE on someone else's request id: it
	// must end exactly as one on a request id nobody used, without a single
	// frame of theirs.
	subscribeRefused := func(ctx context.Context, requestID string) *cursortest.Stream {
		GinkgoHelper()
		end := func(id string) *cursortest.Stream {
			spy, err := cursortest.NewClient(cursorAPI, bobHTTP, id).Subscribe(ctx)
			Expect(err).NotTo(HaveOccurred())
			DeferCleanup(spy.Close)
			Eventually(spy.Done()).WithTimeout(10 * time.Second).Should(BeClosed())
			Expect(spy.EndError()).NotTo(BeNil())
			return spy
		}
		spy, nobody := end(requestID), end(fmt.Sprintf("req-nobody-sse-%d", GinkgoRandomSeed()))
		Expect(spy.EndError().Code()).To(Equal(connect.CodeInvalidArgument))
		Expect(spy.EndError().Error()).To(Equal(nobody.EndError().Error()))
		Expect(spy.Content()).To(BeEmpty())
		return spy
	}

	// gather reads what t owns, as t sees it.
	gather := func(t *tenant, calls int) {
		GinkgoHelper()
		var list controlv1.ListCallsResponse
		k.must(t.user, controlv1connect.CallServiceListCallsProcedure, &controlv1.ListCallsRequest{}, &list)
		Expect(list.GetCalls()).To(HaveLen(calls))
		for _, c := range list.GetCalls() {
			Expect(c.GetUserId()).To(Equal(t.id))
			Expect(c.GetConversationId()).To(Equal(t.conv))
		}
		t.callIDs = callIDs(list.GetCalls())
		var tree controlv1.GetBranchTreeResponse
		k.must(t.user, controlv1connect.ConversationServiceGetBranchTreeProcedure, &controlv1.GetBranchTreeRequest{ConversationId: t.conv}, &tree)
		Expect(tree.GetCheckpoints()).NotTo(BeEmpty())
		t.head = tree.GetHeadCheckpointId()
		for _, cp := range tree.GetCheckpoints() {
			t.checkpoints = append(t.checkpoints, cp.GetId())
		}
	}

	BeforeAll(func() {
		k = startKeygate()

		By("an administrator (by header group) configuring a model on the fake provider and detailed mode")
		var created controlv1.CreateModelResponse
		k.must(root, controlv1connect.ModelServiceCreateModelProcedure, &controlv1.CreateModelRequest{
			Settings: &controlv1.ModelSettings{DisplayName: "Fake GPT", ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT,
				BaseUrl: k.provider.URL, ModelId: "fake-gpt", SupportsTools: true},
			ApiKey: "sk-tenancy-0123456789", Enabled: true,
		}, &created)
		modelID = created.GetModel().GetId()
		Expect(modelID).NotTo(BeEmpty())
		providerID = created.GetModel().GetSettings().GetProviderId()
		var providers controlv1.ListProvidersResponse
		k.must(root, controlv1connect.ProviderServiceListProvidersProcedure, nil, &providers)
		keyID = providers.GetProviders()[0].GetKeys()[0].GetId()
		k.must(root, controlv1connect.SettingServiceUpdateSettingsProcedure, &controlv1.UpdateSettingsRequest{
			Settings: &controlv1.Settings{DetailedMode: true}}, nil)

		By("an administrator marking ada's and bob's groups as teams")
		for _, t := range []string{"team-ml", "team-web"} {
			k.must(root, controlv1connect.TeamServicePutTeamProcedure, &controlv1.PutTeamRequest{Name: t}, nil)
		}

		By("ada and bob (members by header) each creating a personal token")
		adaT = &tenant{user: ada, requestID: "req-ada-7f3c", conv: "conv-ada-91d2"}
		bobT = &tenant{user: bob, requestID: "req-bob-1", conv: "conv-bob-1"}
		adaT.tokenID, adaT.token = k.newToken(ada, "ada's laptop")
		bobT.tokenID, bobT.token = k.newToken(bob, "bob's laptop")
		adaHTTP, bobHTTP = k.CursorHTTP(adaT.token), k.CursorHTTP(bobT.token)

		By("ada keeping a memory in Cursor")
		status, raw := unaryCall(adaHTTP, aiserverv1connect.AiServiceKnowledgeBaseAddProcedure,
			&aiserverv1.KnowledgeBaseAddRequest{Title: "ada's", Knowledge: "ada's secret is " + adaMarker})
		Expect(status).To(Equal(http.StatusOK), string(raw))
		var added aiserverv1.KnowledgeBaseAddResponse
		Expect(proto.Unmarshal(raw, &added)).To(Succeed())
		adaMemory = added.GetId()
		adaMemories()
	})

	It("runs ada's turn with a tool call under her token, and bob cannot reach it while it is live", func(ctx SpecContext) {
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "r1", Text: []string{"Let me read it."},
			Calls: []providertest.Call{{ID: "call_read", Name: "Read", Arguments: []string{`{"path":"notes.txt"}`}}}})))
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "r2", Text: providertest.Words("It says " + adaMarker + "."),
			Usage: providertest.Usage{Input: 120, Output: 5}})))

		By("ada sending her turn through the proxy; her workspace holds the Read until bob has tried")
		ws := cursortest.NewWorkspace(GinkgoT().TempDir())
		Expect(os.WriteFile(filepath.Join(ws.Root, "notes.txt"), []byte("the code is "+adaMarker+"\n"), 0o600)).To(Succeed())
		release := make(chan struct{})
		ws.Hold = func(*agentv1.ExecServerMessage) <-chan struct{} { return release }
		adaStream := turn(ctx, adaHTTP, adaT.requestID, adaT.conv, "What is in notes.txt?", ws)
		Eventually(ws.Execs).WithTimeout(15 * time.Second).Should(HaveLen(1))

		By("bob appending a follow-up to ada's live request id: answered as on one nobody used")
		appendsRefused(ctx, adaT.requestID)

		By("bob subscribing to ada's live run with RunSSE: answered as on one nobody used, none of her frames")
		subscribeRefused(ctx, adaT.requestID)

		By("bob sending a non-agent payload on ada's live request id: answered as on an id nobody holds")
		foreign := func(id string) connect.Code {
			err := cursortest.NewClient(cursorAPI, bobHTTP, id).SendRaw(ctx, &aiserverv1.BidiAppendRequest{
				Data: "not-an-agent-message", RequestId: &aiserverv1.BidiRequestId{RequestId: id}})
			return connect.CodeOf(err)
		}
		Expect(foreign(adaT.requestID)).To(Equal(foreign("req-nobody-holds-this")),
			"whether another user's run is live must not be observable")

		By("ada's run finishing as if bob had never tried")
		close(release)
		Eventually(adaStream.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
		Expect(adaStream.ReadError()).NotTo(HaveOccurred())
		Expect(adaStream.EndError()).To(BeNil())
		Expect(strings.Join(adaStream.Texts(), "")).To(Equal("Let me read it.It says " + adaMarker + "."))
		reqs := k.provider.Requests()
		Expect(reqs).To(HaveLen(2))
		Expect(string(reqs[1].Body)).To(ContainSubstring(adaMarker))
		for _, r := range reqs {
			Expect(string(r.Body)).NotTo(ContainSubstring("bob was here"))
		}
		gather(adaT, 2)

		By("bob running a turn of his own in his own conversation")
		k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "r3", Text: providertest.Words("Hi Bob.")})))
		bobStream := turn(ctx, bobHTTP, bobT.requestID, bobT.conv, "Hello", nil)
		Eventually(bobStream.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
		Expect(bobStream.EndError()).To(BeNil())
		Expect(strings.Join(bobStream.Texts(), "")).To(Equal("Hi Bob."))
		gather(bobT, 1)

		By("ada's memory reaching her turns and none of bob's")
		reqs = k.provider.Requests()
		Expect(string(reqs[0].Body)).To(ContainSubstring("ada's secret is " + adaMarker))
		Expect(string(reqs[len(reqs)-1].Body)).NotTo(ContainSubstring(adaMarker))
	}, SpecTimeout(90*time.Second))

	Describe("the control procedures, as bob (a member)", Ordered, func() {
		notFound := func(req func() proto.Message) func(context.Context, string) []string {
			return func(_ context.Context, p string) []string {
				status, raw := k.call(bob, p, req(), nil)
				Expect(status).To(Equal(http.StatusNotFound), "%s: %s", p, raw)
				Expect(raw).To(ContainSubstring(`"code":"not_found"`), p)
				return []string{raw}
			}
		}
		notFoundEach := func(ids func() []string, req func(id string) proto.Message) func(context.Context, string) []string {
			return func(ctx context.Context, p string) []string {
				var out []string
				for _, id := range ids() {
					out = append(out, notFound(func() proto.Message { return req(id) })(ctx, p)...)
				}
				return out
			}
		}
		answers := func(resp func() proto.Message) func(context.Context, string) []string {
			return func(_ context.Context, p string) []string { return []string{k.must(bob, p, nil, resp())} }
		}
		denied := func(path string, req func() proto.Message) row {
			return row{path: path, class: "configuration", what: "PermissionDenied",
				try: func(_ context.Context, p string) []string {
					status, raw := k.call(bob, p, req(), nil)
					Expect(status).To(Equal(http.StatusForbidden), "%s: %s", p, raw)
					Expect(raw).To(ContainSubstring(`"code":"permission_denied"`), p)
					return []string{raw}
				}}
		}
		chat := controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT
		matrix := rows{
			{path: controlv1connect.CallServiceListCallsProcedure, class: "tenant data",
				what: "only bob's calls; user_id=ada and conversation_id=ada's filters give none",
				try: func(_ context.Context, p string) []string {
					var all, byUser, byConv controlv1.ListCallsResponse
					a := k.must(bob, p, &controlv1.ListCallsRequest{}, &all)
					Expect(callIDs(all.GetCalls())).To(ConsistOf(bobT.callIDs))
					b := k.must(bob, p, &controlv1.ListCallsRequest{Filter: &controlv1.CallFilter{UserId: ada.id}}, &byUser)
					Expect(byUser.GetCalls()).To(BeEmpty())
					c := k.must(bob, p, &controlv1.ListCallsRequest{Filter: &controlv1.CallFilter{ConversationId: adaT.conv}}, &byConv)
					Expect(byConv.GetCalls()).To(BeEmpty())
					return []string{a, b, c}
				}},
			{path: controlv1connect.MemoryServiceListMemoriesProcedure, class: "tenant data",
				what: "bob's memories only; user_id=ada gives his own, none of hers",
				try: func(_ context.Context, p string) []string {
					var mine, hers controlv1.ListMemoriesResponse
					a := k.must(bob, p, &controlv1.ListMemoriesRequest{}, &mine)
					b := k.must(bob, p, &controlv1.ListMemoriesRequest{UserId: ada.id}, &hers)
					for _, m := range append(mine.GetMemories(), hers.GetMemories()...) {
						Expect(m.GetUserId()).To(Equal(bob.id))
					}
					return []string{a, b}
				}},
			{path: controlv1connect.MemoryServiceDeleteMemoryProcedure, class: "tenant data", what: "ada's memory id → NotFound, her memories unchanged",
				try: func(ctx context.Context, p string) []string {
					before := adaMemories()
					out := notFound(func() proto.Message { return &controlv1.DeleteMemoryRequest{Id: adaMemory} })(ctx, p)
					Expect(adaMemories()).To(Equal(before))
					return out
				}},
			{path: controlv1connect.SpendServiceGetSpendReportProcedure, class: "tenant data",
				what: "bob's own rows in his team only; team=ada's team and user_id=ada give none of hers",
				try: func(_ context.Context, p string) []string {
					var mine, hersByUser, hersByTeam controlv1.GetSpendReportResponse
					a := k.must(bob, p, &controlv1.GetSpendReportRequest{Csv: true}, &mine)
					Expect(mine.GetRows()).NotTo(BeEmpty())
					b := k.must(bob, p, &controlv1.GetSpendReportRequest{UserId: ada.id, Csv: true}, &hersByUser)
					c := k.must(bob, p, &controlv1.GetSpendReportRequest{Team: "team-ml", Csv: true}, &hersByTeam)
					Expect(hersByTeam.GetRows()).To(BeEmpty(), "another team's spend")
					for _, r := range append(mine.GetRows(), hersByUser.GetRows()...) {
						Expect(r.GetUserId()).To(Equal(bob.id))
						Expect(r.GetTeam()).To(Equal("team-web"))
					}
					return []string{a, b, c}
				}},
			{path: controlv1connect.TeamServiceGetMyTeamsProcedure, class: "tenant data", what: "bob's own team, no member list",
				try: func(_ context.Context, p string) []string {
					var mine controlv1.GetMyTeamsResponse
					a := k.must(bob, p, nil, &mine)
					Expect(mine.GetCharged()).To(Equal("team-web"))
					Expect(mine.GetTeams()).To(HaveLen(1))
					Expect(mine.GetTeams()[0].GetMembers()).To(BeEmpty())
					return []string{a}
				}},
			{path: controlv1connect.TeamServiceChooseTeamProcedure, class: "tenant data", what: "ada's team → FailedPrecondition, bob's charge unchanged",
				try: func(_ context.Context, p string) []string {
					status, raw := k.call(bob, p, &controlv1.ChooseTeamRequest{Name: "team-ml"}, nil)
					Expect(status).To(Equal(http.StatusBadRequest), raw)
					Expect(raw).To(ContainSubstring(`"code":"failed_precondition"`))
					var mine controlv1.GetMyTeamsResponse
					k.must(bob, controlv1connect.TeamServiceGetMyTeamsProcedure, nil, &mine)
					Expect(mine.GetCharged()).To(Equal("team-web"))
					return []string{raw}
				}},
			denied(controlv1connect.TeamServiceListTeamsProcedure, func() proto.Message { return &controlv1.ListTeamsRequest{} }),
			denied(controlv1connect.TeamServicePutTeamProcedure, func() proto.Message {
				return &controlv1.PutTeamRequest{Name: "team-ml", Restricted: true}
			}),
			denied(controlv1connect.TeamServiceDeleteTeamProcedure, func() proto.Message { return &controlv1.DeleteTeamRequest{Name: "team-ml"} }),
			{path: controlv1connect.CallServiceGetCallProcedure, class: "tenant data", what: "each of ada's call ids → NotFound",
				try: notFoundEach(func() []string { return adaT.callIDs },
					func(id string) proto.Message { return &controlv1.GetCallRequest{CallId: id} })},
			{path: controlv1connect.DashboardServiceGetDashboardProcedure, class: "tenant data",
				what: "totals and per_user are bob's only; user_id=ada gives zero",
				try: func(_ context.Context, p string) []string {
					var mine, hers controlv1.GetDashboardResponse
					a := k.must(bob, p, &controlv1.GetDashboardRequest{}, &mine)
					Expect(mine.GetTotals().GetCalls()).To(BeEquivalentTo(len(bobT.callIDs)))
					Expect(mine.GetPerUser()).To(HaveLen(1))
					Expect(mine.GetPerUser()[0].GetUserId()).To(Equal(bob.id))
					b := k.must(bob, p, &controlv1.GetDashboardRequest{UserId: ada.id}, &hers)
					Expect(hers.GetTotals().GetCalls()).To(BeZero())
					Expect(hers.GetPerUser()).To(BeEmpty())
					return []string{a, b}
				}},
			{path: controlv1connect.DashboardServiceGetCursorCloudProcedure, class: "tenant data",
				what: "the Cursor cloud ledger holds bob's rows only; user_id=ada gives his own",
				try: func(ctx context.Context, p string) []string {
					By("ada and bob each sending a code route toward Cursor, which the company policy refuses and the ledger counts")
					for _, c := range []*http.Client{adaHTTP, bobHTTP} {
						req, err := http.NewRequestWithContext(ctx, http.MethodPost, cursorAPI+"/aiserver.v1.RepositoryService/FastRepoInitHandshakeV2",
							strings.NewReader(adaMarker))
						Expect(err).NotTo(HaveOccurred())
						req.Header.Set("Content-Type", "application/proto")
						resp, err := c.Do(req)
						Expect(err).NotTo(HaveOccurred())
						Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
						_ = resp.Body.Close()
					}
					var mine, hers controlv1.GetCursorCloudResponse
					var a string
					Eventually(func(g Gomega) {
						a = k.must(bob, p, &controlv1.GetCursorCloudRequest{}, &mine)
						g.Expect(mine.GetRows()).To(ContainElement(HaveField("Method", "FastRepoInitHandshakeV2")))
					}).WithTimeout(15 * time.Second).Should(Succeed())
					Expect(mine.GetPolicy()).To(Equal("metadata"))
					for _, r := range mine.GetRows() {
						Expect(r.GetUserId()).To(Equal(bob.id))
					}
					b := k.must(bob, p, &controlv1.GetCursorCloudRequest{UserId: ada.id}, &hers)
					for _, r := range hers.GetRows() {
						Expect(r.GetUserId()).To(Equal(bob.id))
					}
					return []string{a, b}
				}},
			{path: controlv1connect.ConversationServiceListConversationsProcedure, class: "tenant data",
				what: "bob's conversation, none of ada's; a search for hers finds nothing",
				try: func(_ context.Context, p string) []string {
					var list, search controlv1.ListConversationsResponse
					a := k.must(bob, p, &controlv1.ListConversationsRequest{}, &list)
					var ids []string
					for _, c := range list.GetConversations() {
						ids = append(ids, c.GetId())
						Expect(c.GetUserId()).To(Equal(bob.id))
					}
					Expect(ids).To(ConsistOf(bobT.conv))
					b := k.must(bob, p, &controlv1.ListConversationsRequest{Search: adaT.conv}, &search)
					Expect(search.GetConversations()).To(BeEmpty())
					return []string{a, b}
				}},
			{path: controlv1connect.ConversationServiceGetBranchTreeProcedure, class: "tenant data", what: "ada's conversation → NotFound",
				try: notFound(func() proto.Message { return &controlv1.GetBranchTreeRequest{ConversationId: adaT.conv} })},
			{path: controlv1connect.ConversationServiceDeleteConversationProcedure, class: "tenant data", what: "ada's conversation → NotFound, and it stays",
				try: func(ctx context.Context, p string) []string {
					out := notFound(func() proto.Message { return &controlv1.DeleteConversationRequest{ConversationId: adaT.conv} })(ctx, p)
					var tree controlv1.GetBranchTreeResponse
					k.must(root, controlv1connect.ConversationServiceGetBranchTreeProcedure, &controlv1.GetBranchTreeRequest{ConversationId: adaT.conv}, &tree)
					Expect(tree.GetCheckpoints()).NotTo(BeEmpty())
					return out
				}},
			{path: controlv1connect.ConversationServiceGetCheckpointMessagesProcedure, class: "tenant data", what: "each of ada's checkpoints → NotFound",
				try: notFoundEach(func() []string { return adaT.checkpoints }, func(id string) proto.Message {
					return &controlv1.GetCheckpointMessagesRequest{CheckpointId: id}
				})},
			{path: controlv1connect.ModelServiceListModelsProcedure, class: "no tenant data", what: "answers, the configured model listed, no hint of its key",
				try: func(_ context.Context, p string) []string {
					var list controlv1.ListModelsResponse
					a := k.must(bob, p, nil, &list)
					Expect(list.GetModels()).To(HaveLen(1))
					Expect(list.GetModels()[0].GetHasApiKey()).To(BeTrue())
					Expect(list.GetModels()[0].GetApiKeyHint()).To(BeEmpty())
					return []string{a}
				}},
			{path: controlv1connect.SettingServiceGetSettingsProcedure, class: "no tenant data", what: "answers",
				try: answers(func() proto.Message { return &controlv1.GetSettingsResponse{} })},
			{path: controlv1connect.SetupServiceGetCursorSetupProcedure, class: "no tenant data", what: "answers with the proxy, no personal token",
				try: func(_ context.Context, p string) []string {
					var setup controlv1.GetCursorSetupResponse
					a := k.must(bob, p, nil, &setup)
					Expect(setup.GetProxyUrl()).To(Equal("http://" + k.Proxy))
					Expect(setup.GetPersonalToken()).To(BeEmpty())
					return []string{a}
				}},
			denied(controlv1connect.ModelServiceCreateModelProcedure, func() proto.Message {
				return &controlv1.CreateModelRequest{Settings: &controlv1.ModelSettings{
					DisplayName: "Bob's", ProviderKind: chat, BaseUrl: k.provider.URL, ModelId: "x"}}
			}),
			denied(controlv1connect.ModelServiceUpdateModelProcedure, func() proto.Message {
				return &controlv1.UpdateModelRequest{Id: modelID, Settings: &controlv1.ModelSettings{
					DisplayName: "Bob's now", ProviderKind: chat, BaseUrl: "http://127.0.0.1:1", ModelId: "fake-gpt"}}
			}),
			denied(controlv1connect.ModelServiceDeleteModelProcedure, func() proto.Message { return &controlv1.DeleteModelRequest{Id: modelID} }),
			denied(controlv1connect.ModelServiceSetModelEnabledProcedure, func() proto.Message {
				return &controlv1.SetModelEnabledRequest{Id: modelID, Enabled: false}
			}),
			denied(controlv1connect.ModelServiceReorderModelsProcedure, func() proto.Message {
				return &controlv1.ReorderModelsRequest{Ids: []string{modelID}}
			}),
			denied(controlv1connect.ModelServiceDuplicateModelProcedure, func() proto.Message { return &controlv1.DuplicateModelRequest{Id: modelID} }),
			denied(controlv1connect.ModelServiceDiscoverModelsProcedure, func() proto.Message {
				return &controlv1.DiscoverModelsRequest{KeyFromModelId: modelID}
			}),
			denied(controlv1connect.ModelServiceTestModelProcedure, func() proto.Message { return &controlv1.TestModelRequest{Id: modelID} }),
			denied(controlv1connect.SettingServiceUpdateSettingsProcedure, func() proto.Message {
				return &controlv1.UpdateSettingsRequest{Settings: &controlv1.Settings{}}
			}),
			{path: controlv1connect.ModelMappingServiceListModelMappingsProcedure, class: "no tenant data", what: "answers",
				try: answers(func() proto.Message { return &controlv1.ListModelMappingsResponse{} })},
			denied(controlv1connect.ModelMappingServiceSetModelMappingProcedure, func() proto.Message {
				return &controlv1.SetModelMappingRequest{CursorModel: "gpt-5", Target: modelID}
			}),
			denied(controlv1connect.ModelMappingServiceDeleteModelMappingProcedure, func() proto.Message {
				return &controlv1.DeleteModelMappingRequest{CursorModel: "gpt-5"}
			}),
			{path: controlv1connect.SettingServiceGetTabModelProcedure, class: "no tenant data", what: "answers",
				try: answers(func() proto.Message { return &controlv1.GetTabModelResponse{} })},
			denied(controlv1connect.SettingServiceSetTabModelProcedure, func() proto.Message {
				return &controlv1.SetTabModelRequest{Model: ""}
			}),
			{path: controlv1connect.SettingServiceGetFeatureModelsProcedure, class: "no tenant data", what: "answers",
				try: answers(func() proto.Message { return &controlv1.GetFeatureModelsResponse{} })},
			denied(controlv1connect.SettingServiceSetFeatureModelProcedure, func() proto.Message {
				return &controlv1.SetFeatureModelRequest{Feature: controlv1.Feature_FEATURE_COMMIT, Model: ""}
			}),
			{path: controlv1connect.AliasServiceListAliasesProcedure, class: "no tenant data", what: "answers",
				try: answers(func() proto.Message { return &controlv1.ListAliasesResponse{} })},
			denied(controlv1connect.AliasServiceCreateAliasProcedure, func() proto.Message {
				return &controlv1.CreateAliasRequest{Settings: &controlv1.AliasSettings{DisplayName: "Bob's",
					Targets: []*controlv1.AliasTarget{{ModelId: modelID}}}}
			}),
			denied(controlv1connect.AliasServiceUpdateAliasProcedure, func() proto.Message {
				return &controlv1.UpdateAliasRequest{Id: "any", Settings: &controlv1.AliasSettings{DisplayName: "Bob's"}}
			}),
			denied(controlv1connect.AliasServiceDeleteAliasProcedure, func() proto.Message { return &controlv1.DeleteAliasRequest{Id: "any"} }),
			denied(controlv1connect.AliasServiceSetAliasEnabledProcedure, func() proto.Message {
				return &controlv1.SetAliasEnabledRequest{Id: "any", Enabled: true}
			}),
			denied(controlv1connect.AliasServiceDrainAliasTargetProcedure, func() proto.Message {
				return &controlv1.DrainAliasTargetRequest{Id: "any", ModelId: modelID, Drained: true}
			}),
			denied(controlv1connect.ProviderServiceListProvidersProcedure, func() proto.Message { return &controlv1.ListProvidersRequest{} }),
			denied(controlv1connect.ProviderServiceCreateProviderProcedure, func() proto.Message {
				return &controlv1.CreateProviderRequest{Settings: &controlv1.ProviderSettings{ProviderKind: chat, BaseUrl: k.provider.URL},
					Keys: []*controlv1.NewProviderKey{{ApiKey: "sk-bob-0123456789"}}}
			}),
			denied(controlv1connect.ProviderServiceUpdateProviderProcedure, func() proto.Message {
				return &controlv1.UpdateProviderRequest{Id: providerID, Settings: &controlv1.ProviderSettings{ProviderKind: chat, BaseUrl: "http://127.0.0.1:1"}}
			}),
			denied(controlv1connect.ProviderServiceDeleteProviderProcedure, func() proto.Message { return &controlv1.DeleteProviderRequest{Id: providerID} }),
			denied(controlv1connect.ProviderServiceAddProviderKeyProcedure, func() proto.Message {
				return &controlv1.AddProviderKeyRequest{ProviderId: providerID, Key: &controlv1.NewProviderKey{ApiKey: "sk-bob-0123456789"}}
			}),
			denied(controlv1connect.ProviderServiceUpdateProviderKeyProcedure, func() proto.Message {
				return &controlv1.UpdateProviderKeyRequest{ProviderId: providerID, KeyId: keyID, ApiKey: "sk-bob-0123456789"}
			}),
			denied(controlv1connect.ProviderServiceSetProviderKeyEnabledProcedure, func() proto.Message {
				return &controlv1.SetProviderKeyEnabledRequest{ProviderId: providerID, KeyId: keyID}
			}),
			denied(controlv1connect.ProviderServiceDeleteProviderKeyProcedure, func() proto.Message {
				return &controlv1.DeleteProviderKeyRequest{ProviderId: providerID, KeyId: keyID}
			}),
			denied(controlv1connect.ServiceAccountServiceListServiceAccountsProcedure, func() proto.Message {
				return &controlv1.ListServiceAccountsRequest{}
			}),
			denied(controlv1connect.ServiceAccountServiceCreateServiceAccountProcedure, func() proto.Message {
				return &controlv1.CreateServiceAccountRequest{Name: "bob's", Role: controlv1.ServiceAccountRole_SERVICE_ACCOUNT_ROLE_ADMIN}
			}),
			denied(controlv1connect.ServiceAccountServiceRevokeServiceAccountProcedure, func() proto.Message {
				return &controlv1.RevokeServiceAccountRequest{Id: "any"}
			}),
			{path: controlv1connect.BudgetServiceGetBudgetStandingProcedure, class: "tenant data",
				what: "bob's own limits and usage; user_id=ada → PermissionDenied",
				try: func(_ context.Context, p string) []string {
					var mine controlv1.GetBudgetStandingResponse
					a := k.must(bob, p, &controlv1.GetBudgetStandingRequest{}, &mine)
					Expect(mine.GetUserId()).To(Equal(bob.id))
					status, b := k.call(bob, p, &controlv1.GetBudgetStandingRequest{UserId: ada.id}, nil)
					Expect(status).To(Equal(http.StatusForbidden), "%s: %s", p, b)
					return []string{a, b}
				}},
			denied(controlv1connect.BudgetServiceListBudgetLimitsProcedure, func() proto.Message { return &controlv1.ListBudgetLimitsRequest{} }),
			denied(controlv1connect.BudgetServiceSetBudgetLimitsProcedure, func() proto.Message {
				return &controlv1.SetBudgetLimitsRequest{Scope: &controlv1.BudgetScope{Kind: controlv1.BudgetScopeKind_BUDGET_SCOPE_KIND_USER, Id: bob.id},
					Limits: &controlv1.BudgetLimitValues{TokensPerDay: 1e12}}
			}),
			denied(controlv1connect.BudgetServiceDeleteBudgetLimitsProcedure, func() proto.Message {
				return &controlv1.DeleteBudgetLimitsRequest{Scope: &controlv1.BudgetScope{Kind: controlv1.BudgetScopeKind_BUDGET_SCOPE_KIND_DEFAULT}}
			}),
			denied(controlv1connect.BudgetServiceGetBudgetAlertsProcedure, func() proto.Message { return &controlv1.GetBudgetAlertsRequest{} }),
			denied(controlv1connect.BudgetServiceSetBudgetAlertsProcedure, func() proto.Message { return &controlv1.SetBudgetAlertsRequest{} }),
		}

		var calls int
		BeforeAll(func() { calls = len(k.provider.Requests()) })

		It("classify every procedure of the control API, and only those", func() {
			Expect(matrix.paths()).To(Equal(controlProcedures()), "every procedure is a row below, and only those")
		})

		DescribeTable("give bob nothing of ada's",
			func(r row) { tryRow(context.Background(), r, adaT) },
			matrix.entries())

		It("leave the configuration unchanged and spend no provider call when refused", func() {
			var models controlv1.ListModelsResponse
			k.must(root, controlv1connect.ModelServiceListModelsProcedure, nil, &models)
			Expect(models.GetModels()).To(HaveLen(1))
			Expect(models.GetModels()[0].GetSettings().GetDisplayName()).To(Equal("Fake GPT"))
			Expect(models.GetModels()[0].GetEnabled()).To(BeTrue())
			var settings controlv1.GetSettingsResponse
			k.must(root, controlv1connect.SettingServiceGetSettingsProcedure, nil, &settings)
			Expect(settings.GetSettings().GetDetailedMode()).To(BeTrue())
			var aliases controlv1.ListAliasesResponse
			k.must(root, controlv1connect.AliasServiceListAliasesProcedure, nil, &aliases)
			Expect(aliases.GetAliases()).To(BeEmpty())
			var providers controlv1.ListProvidersResponse
			k.must(root, controlv1connect.ProviderServiceListProvidersProcedure, nil, &providers)
			Expect(providers.GetProviders()).To(HaveLen(1))
			Expect(providers.GetProviders()[0].GetKeys()).To(HaveLen(1))
			Expect(providers.GetProviders()[0].GetKeys()[0].GetEnabled()).To(BeTrue())
			Expect(providers.GetProviders()[0].GetSettings().GetBaseUrl()).To(Equal(k.provider.URL))
			Expect(k.provider.Requests()).To(HaveLen(calls))
		})
	})

	Describe("the account routes, as bob (a member)", Ordered, func() {
		matrix := rows{
			{path: "GET /auth/me", class: "own identity", what: "bob, member",
				try: func(context.Context, string) []string {
					status, raw := k.do(bob, http.MethodGet, "/auth/me", "", nil)
					Expect(status).To(Equal(http.StatusOK))
					var me struct{ UserID, Role string }
					Expect(json.Unmarshal([]byte(raw), &me)).To(Succeed())
					Expect(me.UserID).To(Equal(bob.id))
					Expect(me.Role).To(Equal("member"))
					return []string{raw}
				}},
			{path: "GET /auth/tokens", class: "tenant data", what: "bob's token only; all=1 → 403",
				try: func(context.Context, string) []string {
					status, list, raw := k.tokens(bob, "")
					Expect(status).To(Equal(http.StatusOK))
					Expect(list).To(HaveLen(1))
					Expect(list[0].ID).To(Equal(bobT.tokenID))
					status, _, all := k.tokens(bob, "?all=1")
					Expect(status).To(Equal(http.StatusForbidden))
					return []string{raw, all}
				}},
			{path: "POST /auth/tokens", class: "own data", what: "mints a token owned by bob",
				try: func(context.Context, string) []string {
					id, _ := k.newToken(bob, "bob's second")
					status, raw := k.do(bob, http.MethodDelete, "/auth/tokens/"+id, "", nil)
					Expect(status).To(Equal(http.StatusNoContent), raw)
					return []string{raw}
				}},
			{path: "DELETE /auth/tokens/{id}", class: "tenant data", what: "ada's token → 404, still usable by her",
				try: func(context.Context, string) []string {
					status, raw := k.do(bob, http.MethodDelete, "/auth/tokens/"+adaT.tokenID, "", nil)
					Expect(status).To(Equal(http.StatusNotFound), raw)
					_, hers, _ := k.tokens(ada, "")
					Expect(hers).To(HaveLen(1))
					Expect(hers[0].RevokedAt).To(BeEmpty())
					Expect(k.connectStatus(basic(adaT.token)).StatusCode).To(Equal(http.StatusOK))
					return []string{raw}
				}},
			{path: "GET /auth/audit", class: "admin only", what: "403 for a member (also with actor=ada); an admin reads it",
				try: func(context.Context, string) []string {
					status, raw := k.do(bob, http.MethodGet, "/auth/audit", "", nil)
					Expect(status).To(Equal(http.StatusForbidden), raw)
					status, byActor := k.do(bob, http.MethodGet, "/auth/audit?actor="+url.QueryEscape(ada.id), "", nil)
					Expect(status).To(Equal(http.StatusForbidden), byActor)
					status, admin := k.do(root, http.MethodGet, "/auth/audit", "", nil)
					Expect(status).To(Equal(http.StatusOK))
					Expect(admin).To(ContainSubstring(adaT.tokenID), "the audit log is the administrators'")
					return []string{raw, byActor}
				}},
			{path: "GET /metrics", class: "no tenant data", what: "closed in company mode without KEYGATE_METRICS_TOKEN (403)",
				try: func(context.Context, string) []string {
					status, raw := k.do(user{}, http.MethodGet, "/metrics", "", nil)
					Expect(status).To(Equal(http.StatusForbidden))
					Expect(raw).To(ContainSubstring("KEYGATE_METRICS_TOKEN"))
					Expect(raw).NotTo(ContainSubstring("keygate_"))
					return []string{raw}
				}},
		}

		It("classify every account route the composition root mounts, and only those", func() {
			Expect(matrix.paths()).To(Equal(accountRoutes()), "every route is a row below, and only those")
		})

		DescribeTable("give bob nothing of ada's",
			func(r row) { tryRow(context.Background(), r, adaT) },
			matrix.entries())
	})

	Describe("the Cursor routes behind the proxy, with bob's token", Ordered, func() {
		var (
			adaHead        string
			adaCheckpoints int
			calls          int
		)
		BeforeAll(func() {
			adaHead, adaCheckpoints = headOf(adaT.conv)
			calls = len(k.provider.Requests())
		})
		// memoryRow is a KnowledgeBase route bob calls naming ada's memory:
		// answered 200 as on an id nobody used, her memories unchanged.
		memoryRow := func(path, what string, req func() proto.Message) row {
			return row{path: path, class: "tenant data", what: what,
				try: func(_ context.Context, p string) []string {
					before := adaMemories()
					status, raw := unaryCall(bobHTTP, p, req())
					Expect(status).To(Equal(http.StatusOK), "%s: %s", p, raw)
					Expect(adaMemories()).To(Equal(before), "ada's memories")
					return []string{string(raw)}
				}}
		}
		unchanged := func() {
			GinkgoHelper()
			head, n := headOf(adaT.conv)
			Expect(head).To(Equal(adaHead), "ada's conversation head")
			Expect(n).To(Equal(adaCheckpoints), "ada's checkpoints")
			Expect(k.provider.Requests()).To(HaveLen(calls), "no model call made for bob")
		}
		answers := func(path string, req proto.Message) row {
			return row{path: path, class: "no tenant data", what: "200",
				try: func(_ context.Context, p string) []string {
					status, raw := unaryCall(bobHTTP, p, req)
					Expect(status).To(Equal(http.StatusOK), "%s: %s", p, raw)
					return []string{string(raw)}
				}}
		}
		matrix := rows{
			{path: aiserverv1connect.BidiServiceBidiAppendProcedure, class: "tenant data",
				what: "follow-up on ada's request id → answered as on an id nobody used (invalid_argument)",
				try: func(ctx context.Context, _ string) []string {
					answers := appendsRefused(ctx, adaT.requestID)
					unchanged()
					return answers
				}},
			{path: agentv1connect.AgentServiceRunSSEProcedure, class: "tenant data",
				what: "ada's request id → answered as an id nobody used, no frames; a new turn naming ada's conversation → refused, no model call, her head unchanged",
				try: func(ctx context.Context, _ string) []string {
					spy := subscribeRefused(ctx, adaT.requestID)

					st := turn(ctx, bobHTTP, "req-bob-2", adaT.conv, "bob was here: what did ada ask?", nil)
					Eventually(st.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
					Expect(st.EndError()).NotTo(BeNil(), "the turn is refused")
					AddReportEntry("bob's turn naming ada's conversation ended with", st.EndError().Code().String()+": "+st.EndError().Message())
					Expect(st.EndError().Code()).To(Equal(connect.CodeNotFound), "like a conversation that does not exist")
					Expect(st.EndError().Message()).To(Equal("conversation not found"))
					Expect(st.Texts()).To(BeEmpty())
					for _, m := range st.Content() {
						Expect(m.GetConversationCheckpointUpdate()).To(BeNil())
					}
					unchanged()
					var out []string
					for _, m := range append(spy.Messages(), st.Messages()...) {
						out = append(out, protojson.Format(m))
					}
					// The refusal may name the conversation bob named, and nothing else of ada's.
					expectNothingOf(adaT, st.EndError().Error(), "the refusal", adaT.conv)

					// A subagent turn of bob's that names ada's request id as its
					// parent runs exactly as one naming a made-up parent: as a
					// root run of bob's, recording no run of hers.
					child := func(id, parent string) *cursortest.Stream {
						k.provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: id, Text: providertest.Words("Hi Bob.")})))
						c := cursortest.NewClient(cursorAPI, bobHTTP, id)
						c.Header.Set("X-Parent-Request-Id", parent)
						c.Header.Set("X-Parent-Agent-Tool-Call-Id", "call-1")
						cs, err := c.Subscribe(ctx)
						Expect(err).NotTo(HaveOccurred())
						DeferCleanup(cs.Close)
						Expect(c.Send(ctx, cursortest.RunRequest("conv-"+id, modelID, "hi"))).To(Succeed())
						Eventually(cs.Done()).WithTimeout(20 * time.Second).Should(BeClosed())
						return cs
					}
					foreign, madeUp := child("req-bob-child", adaT.requestID), child("req-bob-child-2", "req-nobody-parent")
					Expect(foreign.EndError()).To(BeNil())
					Expect(madeUp.EndError()).To(BeNil())
					Expect(foreign.Texts()).To(Equal(madeUp.Texts()))
					calls = len(k.provider.Requests())
					var bobs controlv1.ListCallsResponse
					k.must(bob, controlv1connect.CallServiceListCallsProcedure, &controlv1.ListCallsRequest{}, &bobs)
					bobT.callIDs = callIDs(bobs.GetCalls()) // his subagents' calls are his
					return out
				}},
			{path: agentv1connect.AgentServiceRunProcedure, class: "tenant data",
				what: "HTTP/2 only; through the proxy (HTTP/1.1) → FailedPrecondition before any turn; ada's head unchanged",
				try: func(context.Context, string) []string {
					proto, end, msgs := runWhole(bobHTTP, "req-bob-3", cursortest.RunRequest(adaT.conv, modelID, "bob was here"))
					Expect(proto).To(Equal(1), "the proxy offers HTTP/1.1 only")
					Expect(end).NotTo(BeNil())
					Expect(end.Code()).To(Equal(connect.CodeFailedPrecondition))
					Expect(msgs).To(BeEmpty())
					unchanged()
					return []string{end.Error()}
				}},
			{path: agentv1connect.AgentServiceUpdateConversationMetadataProcedure, class: "no tenant data",
				what: "naming ada's conversation → 200, ignored; her head unchanged",
				try: func(_ context.Context, p string) []string {
					name := "bob renamed it"
					status, raw := unaryCall(bobHTTP, p, &agentv1.UpdateConversationMetadataRequest{ConversationId: adaT.conv, Name: &name})
					Expect(status).To(Equal(http.StatusOK), string(raw))
					unchanged()
					return []string{string(raw)}
				}},
			memoryRow(aiserverv1connect.AiServiceKnowledgeBaseListProcedure, "bob's list → his own memories only, none of ada's",
				func() proto.Message { return &aiserverv1.KnowledgeBaseListRequest{} }),
			memoryRow(aiserverv1connect.AiServiceKnowledgeBaseAddProcedure, "bob's memory → his, ada's list unchanged",
				func() proto.Message {
					return &aiserverv1.KnowledgeBaseAddRequest{Title: "bob's", Knowledge: "bob was here"}
				}),
			memoryRow(aiserverv1connect.AiServiceKnowledgeBaseUpdateProcedure, "ada's memory id → success false, as an id nobody used",
				func() proto.Message {
					return &aiserverv1.KnowledgeBaseUpdateRequest{Id: adaMemory, Title: "bob's", Knowledge: "bob was here"}
				}),
			memoryRow(aiserverv1connect.AiServiceKnowledgeBaseRemoveProcedure, "ada's memory id → success false, as an id nobody used",
				func() proto.Message { return &aiserverv1.KnowledgeBaseRemoveRequest{Id: adaMemory} }),
			answers(agentv1connect.AgentServiceGetAllowedModelIntentsProcedure, &agentv1.GetAllowedModelIntentsRequest{}),
			answers(agentv1connect.AgentServiceGetNewChatNudgeLegacyModelPickerProcedure, &agentv1.GetNewChatNudgeLegacyModelPickerRequest{}),
			answers(agentv1connect.AgentServiceGetNewChatNudgeParameterizedModelPickerProcedure, &agentv1.GetNewChatNudgeParameterizedModelPickerRequest{}),
			answers(agentv1connect.AgentServiceGetUsableModelsProcedure, &agentv1.GetUsableModelsRequest{}),
			answers(agentv1connect.AgentServiceGetDefaultModelForCliProcedure, &agentv1.GetDefaultModelForCliRequest{}),
			answers(aiserverv1connect.AiServiceGetServerConfigProcedure, nil),
			answers(aiserverv1connect.AiServiceAvailableModelsProcedure, nil),
			answers(aiserverv1connect.AiServiceGetUsableModelsProcedure, nil),
			answers(aiserverv1connect.AiServiceGetDefaultModelProcedure, nil),
			answers(aiserverv1connect.AiServiceGetDefaultModelNudgeDataProcedure, nil),
			answers(aiserverv1connect.AiServiceGetDefaultModelForCliProcedure, nil),
			answers(aiserverv1connect.ServerConfigServiceGetServerConfigProcedure, nil),
			answers(aiserverv1connect.NetworkServiceIsConnectedProcedure, nil),
		}
		for path, status := range unary.Stubs {
			matrix = append(matrix, row{path: path, class: "local stub", what: fmt.Sprintf("fixed %d", status),
				try: func(_ context.Context, p string) []string {
					got, raw := unaryCall(bobHTTP, p, nil)
					Expect(got).To(Equal(status), p)
					return []string{string(raw)}
				}})
		}

		It("classify every route the Cursor adapter serves, and only those", func() {
			Expect(matrix.paths()).To(Equal(cursorRoutes()), "every route is a row below, and only those")
		})

		DescribeTable("give bob nothing of ada's",
			func(ctx SpecContext, r row) { tryRow(ctx, r, adaT) },
			matrix.entries(SpecTimeout(60*time.Second)))
	})

	It("lets no one through the proxy without a valid personal token", func() {
		By("a CONNECT without credentials: 407 with a Basic challenge")
		resp := k.connectStatus("")
		Expect(resp.StatusCode).To(Equal(http.StatusProxyAuthRequired))
		Expect(resp.Header.Get("Proxy-Authenticate")).To(HavePrefix("Basic"))

		By("a CONNECT with a made-up token: 407")
		Expect(k.connectStatus(basic("kg_not-a-real-token")).StatusCode).To(Equal(http.StatusProxyAuthRequired))
		Expect(k.connectStatus("Bearer kg_not-a-real-token").StatusCode).To(Equal(http.StatusProxyAuthRequired))

		By("a CONNECT with a token its owner revoked: 407")
		id, text := k.newToken(bob, "revoked")
		Expect(k.connectStatus(basic(text)).StatusCode).To(Equal(http.StatusOK))
		status, raw := k.do(bob, http.MethodDelete, "/auth/tokens/"+id, "", nil)
		Expect(status).To(Equal(http.StatusNoContent), raw)
		Expect(k.connectStatus(basic(text)).StatusCode).To(Equal(http.StatusProxyAuthRequired))

		By("an absolute-form plain-HTTP request without credentials: 407")
		conn, err := net.Dial("tcp", k.Proxy)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(conn.Close)
		_, err = io.WriteString(conn, "GET http://api2.cursor.sh/ HTTP/1.1\r\nHost: api2.cursor.sh\r\n\r\n")
		Expect(err).NotTo(HaveOccurred())
		plain, err := http.ReadResponse(bufio.NewReader(conn), nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(plain.StatusCode).To(Equal(http.StatusProxyAuthRequired))
	})

	It("still shows ada her own call and conversation, and an administrator both users' data", func() {
		By("ada seeing her calls, their details and her conversation, and nothing of bob's")
		var list controlv1.ListCallsResponse
		k.must(ada, controlv1connect.CallServiceListCallsProcedure, &controlv1.ListCallsRequest{}, &list)
		Expect(callIDs(list.GetCalls())).To(ConsistOf(adaT.callIDs))
		for _, id := range adaT.callIDs {
			var call controlv1.GetCallResponse
			k.must(ada, controlv1connect.CallServiceGetCallProcedure, &controlv1.GetCallRequest{CallId: id}, &call)
			Expect(call.GetCall().GetUserId()).To(Equal(ada.id))
		}
		var convs controlv1.ListConversationsResponse
		raw := k.must(ada, controlv1connect.ConversationServiceListConversationsProcedure, nil, &convs)
		Expect(convs.GetConversations()).To(HaveLen(1))
		Expect(convs.GetConversations()[0].GetId()).To(Equal(adaT.conv))
		Expect(raw).NotTo(ContainSubstring(bobT.conv))
		var tree controlv1.GetBranchTreeResponse
		k.must(ada, controlv1connect.ConversationServiceGetBranchTreeProcedure, &controlv1.GetBranchTreeRequest{ConversationId: adaT.conv}, &tree)
		Expect(tree.GetHeadCheckpointId()).To(Equal(adaT.head))
		var msgs controlv1.GetCheckpointMessagesResponse
		k.must(ada, controlv1connect.ConversationServiceGetCheckpointMessagesProcedure, &controlv1.GetCheckpointMessagesRequest{CheckpointId: adaT.head}, &msgs)
		Expect(protojson.Format(&msgs)).To(ContainSubstring(adaMarker))
		status, _ := k.call(ada, controlv1connect.ConversationServiceGetBranchTreeProcedure, &controlv1.GetBranchTreeRequest{ConversationId: bobT.conv}, nil)
		Expect(status).To(Equal(http.StatusNotFound), "bob's conversation is his")

		By("an administrator seeing both users' calls and both in the dashboard's per-user sums")
		var all controlv1.ListCallsResponse
		k.must(root, controlv1connect.CallServiceListCallsProcedure, &controlv1.ListCallsRequest{}, &all)
		Expect(callIDs(all.GetCalls())).To(ConsistOf(append(slices.Clone(adaT.callIDs), bobT.callIDs...)))
		var dash controlv1.GetDashboardResponse
		k.must(root, controlv1connect.DashboardServiceGetDashboardProcedure, &controlv1.GetDashboardRequest{}, &dash)
		perUser := map[string]int64{}
		for _, u := range dash.GetPerUser() {
			perUser[u.GetUserId()] = u.GetAggregate().GetCalls()
		}
		Expect(perUser).To(Equal(map[string]int64{ada.id: int64(len(adaT.callIDs)), bob.id: int64(len(bobT.callIDs))}))
		var cloud controlv1.GetCursorCloudResponse
		Eventually(func(g Gomega) {
			k.must(root, controlv1connect.DashboardServiceGetCursorCloudProcedure, &controlv1.GetCursorCloudRequest{}, &cloud)
			users := map[string]bool{}
			for _, r := range cloud.GetRows() {
				users[r.GetUserId()] = true
			}
			g.Expect(users).To(HaveKey(ada.id))
			g.Expect(users).To(HaveKey(bob.id))
		}).WithTimeout(15 * time.Second).Should(Succeed())
		var call controlv1.GetCallResponse
		k.must(root, controlv1connect.CallServiceGetCallProcedure, &controlv1.GetCallRequest{CallId: adaT.callIDs[0]}, &call)
		Expect(call.GetCall().GetUserId()).To(Equal(ada.id))

		By("ada seeing her memory in the console, an administrator everyone's, filtered by user, and deleting hers")
		var mine, everyone, hers controlv1.ListMemoriesResponse
		k.must(ada, controlv1connect.MemoryServiceListMemoriesProcedure, &controlv1.ListMemoriesRequest{}, &mine)
		Expect(mine.GetMemories()).To(HaveLen(1))
		Expect(mine.GetMemories()[0].GetId()).To(Equal(adaMemory))
		k.must(root, controlv1connect.MemoryServiceListMemoriesProcedure, &controlv1.ListMemoriesRequest{}, &everyone)
		owners := map[string]bool{}
		for _, m := range everyone.GetMemories() {
			owners[m.GetUserId()] = true
		}
		Expect(owners).To(Equal(map[string]bool{ada.id: true, bob.id: true}))
		k.must(root, controlv1connect.MemoryServiceListMemoriesProcedure, &controlv1.ListMemoriesRequest{UserId: ada.id}, &hers)
		Expect(hers.GetMemories()).To(HaveLen(1))
		k.must(root, controlv1connect.MemoryServiceDeleteMemoryProcedure, &controlv1.DeleteMemoryRequest{Id: adaMemory}, nil)
		k.must(ada, controlv1connect.MemoryServiceListMemoriesProcedure, &controlv1.ListMemoriesRequest{}, &mine)
		Expect(mine.GetMemories()).To(BeEmpty())
	})

	It("lets a member delete their own conversation and an administrator anyone's, each audited", func() {
		By("bob deleting his own")
		k.must(bob, controlv1connect.ConversationServiceDeleteConversationProcedure, &controlv1.DeleteConversationRequest{ConversationId: bobT.conv}, nil)
		var list controlv1.ListConversationsResponse
		k.must(bob, controlv1connect.ConversationServiceListConversationsProcedure, &controlv1.ListConversationsRequest{}, &list)
		for _, c := range list.GetConversations() {
			Expect(c.GetId()).NotTo(Equal(bobT.conv))
		}
		status, raw := k.call(bob, controlv1connect.ConversationServiceGetBranchTreeProcedure, &controlv1.GetBranchTreeRequest{ConversationId: bobT.conv}, nil)
		Expect(status).To(Equal(http.StatusNotFound), raw)

		By("an administrator deleting ada's; her call records stay for spend")
		k.must(root, controlv1connect.ConversationServiceDeleteConversationProcedure, &controlv1.DeleteConversationRequest{ConversationId: adaT.conv}, nil)
		status, raw = k.call(root, controlv1connect.ConversationServiceGetBranchTreeProcedure, &controlv1.GetBranchTreeRequest{ConversationId: adaT.conv}, nil)
		Expect(status).To(Equal(http.StatusNotFound), raw)
		var call controlv1.GetCallResponse
		k.must(root, controlv1connect.CallServiceGetCallProcedure, &controlv1.GetCallRequest{CallId: adaT.callIDs[0]}, &call)
		Expect(call.GetCall().GetUserId()).To(Equal(ada.id))

		status, audit := k.do(root, http.MethodGet, "/auth/audit?limit=100", "", nil)
		Expect(status).To(Equal(http.StatusOK), audit)
		Expect(audit).To(ContainSubstring("conversation.delete"))
		Expect(audit).To(ContainSubstring(adaT.conv))
		Expect(audit).To(ContainSubstring(bobT.conv))
	})
})
