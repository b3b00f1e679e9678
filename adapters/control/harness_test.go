package control_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing/fstest"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"keygate/adapters/control"
	"keygate/adapters/control/controltest"
	"keygate/adapters/provider"
	"keygate/adapters/provider/discovery"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/secret"
	"keygate/app/company"
	appcontrol "keygate/app/control"
	"keygate/app/run/runtest"
	"keygate/domain/audit"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
	"keygate/ports"
)

// api is a Keygate control API over a real HTTP server, backed by the
// in-memory store, a real secret box and the real provider client talking
// to a fake provider.
type api struct {
	store    *controltest.Store
	convs    *controltest.Conversations
	upstream *providertest.Server
	// elsewhere is a second fake provider on another origin.
	elsewhere *providertest.Server
	box       *secret.Ring
	// published, endpoints and binding are use cases beside the API's,
	// over the same stores.
	published *appcontrol.Publishing
	endpoints *appcontrol.Endpoints
	binding   *appcontrol.KeyBinding
	// audit holds what the real company.Auditor recorded.
	audit *auditLog
	// checkURL is the use cases' CheckURL while set.
	checkURL func(ctx context.Context, rawURL string) error
	prompts  *controltest.Prompts
	tap      *appcontrol.PromptTap
	settings *appcontrol.Settings
	server   *httptest.Server

	models    controlv1connect.ModelServiceClient
	calls     controlv1connect.CallServiceClient
	dashboard controlv1connect.DashboardServiceClient
	setting   controlv1connect.SettingServiceClient
	talks     controlv1connect.ConversationServiceClient
	providers controlv1connect.ProviderServiceClient
	aliases   controlv1connect.AliasServiceClient
}

func newAPI() *api { return newAPIWith(nil) }

// newAPIWith is newAPI behind guard (nil: none).
func newAPIWith(guard func(http.Handler) http.Handler) *api {
	a := &api{store: controltest.NewStore(nil), convs: controltest.NewConversations(nil), upstream: providertest.NewServer(),
		elsewhere: providertest.NewServer(), prompts: controltest.NewPrompts(), audit: &auditLog{}}
	DeferCleanup(a.upstream.Close)
	DeferCleanup(a.elsewhere.Close)
	box, err := secret.NewRing([]byte("0123456789abcdef0123456789abcdef"))
	Expect(err).NotTo(HaveOccurred())
	a.box = box
	a.settings = appcontrol.NewSettings(a.store)
	client := provider.New(provider.Options{Recorder: a.store, Detailed: a.settings.Detailed})
	a.tap = appcontrol.NewPromptTap(client, a.prompts)
	calls := appcontrol.NewCalls(appcontrol.CallsOptions{Lister: a.store, Reader: a.store, Prompts: a.prompts})
	checkURL := func(ctx context.Context, raw string) error {
		if a.checkURL == nil {
			return nil
		}
		return a.checkURL(ctx, raw)
	}
	protocols, auditor := provider.Builtin(), company.NewAuditor(a.audit, runtest.NewClock())
	a.published = appcontrol.NewPublishing(a.store, a.store, protocols)
	a.endpoints = appcontrol.NewEndpoints(appcontrol.EndpointsOptions{Models: a.store, Providers: a.store, Secrets: box, Protocols: protocols})
	a.binding = appcontrol.NewKeyBinding(a.store, box, protocols)
	routes := control.Routes(control.Options{
		Models: appcontrol.NewModels(appcontrol.ModelsOptions{Store: a.store, Providers: a.store, Aliases: a.store,
			Secrets: box, Protocols: protocols, CheckURL: checkURL}),
		Providers: appcontrol.NewProviders(appcontrol.ProvidersOptions{Providers: a.store, Models: a.store, Health: a.store,
			Secrets: box, Protocols: protocols, CheckURL: checkURL}),
		Aliases: appcontrol.NewAliases(appcontrol.AliasesOptions{Aliases: a.store, Models: a.store, Providers: a.store, Health: a.store}),
		Discovery: appcontrol.NewDiscovery(appcontrol.DiscoveryOptions{Lister: control.NewDiscovery(discovery.New(nil, protocols)),
			Models: a.store, Providers: a.store, Secrets: box, Protocols: protocols, CheckURL: checkURL, Audit: auditor}),
		Tester:        appcontrol.NewTester(appcontrol.TesterOptions{Endpoints: a.endpoints, Provider: a.tap, Protocols: protocols, Audit: auditor}),
		Calls:         calls,
		Dashboard:     appcontrol.NewDashboard(a.store, a.settings, nil),
		Settings:      a.settings,
		Conversations: appcontrol.NewConversations(a.convs, a.convs),
		Setup: func(context.Context) (control.Setup, error) {
			return control.Setup{ProxyURL: "http://127.0.0.1:7878"}, nil
		},
		Console: fstest.MapFS{"index.html": {Data: []byte("<html>console</html>")},
			"assets/app-1.js": {Data: []byte("console.log(1)")}},
		Guard: guard,
	})
	mux := http.NewServeMux()
	for p, h := range routes {
		mux.Handle(p, h)
	}
	a.server = httptest.NewServer(mux)
	DeferCleanup(a.server.Close)
	a.models = controlv1connect.NewModelServiceClient(a.server.Client(), a.server.URL)
	a.calls = controlv1connect.NewCallServiceClient(a.server.Client(), a.server.URL)
	a.dashboard = controlv1connect.NewDashboardServiceClient(a.server.Client(), a.server.URL)
	a.setting = controlv1connect.NewSettingServiceClient(a.server.Client(), a.server.URL)
	a.talks = controlv1connect.NewConversationServiceClient(a.server.Client(), a.server.URL)
	a.providers = controlv1connect.NewProviderServiceClient(a.server.Client(), a.server.URL)
	a.aliases = controlv1connect.NewAliasServiceClient(a.server.Client(), a.server.URL)
	return a
}

// chatSettings points a model at the fake provider's Chat Completions.
func (a *api) chatSettings(modelID string) *controlv1.ModelSettings {
	return &controlv1.ModelSettings{DisplayName: "Fake " + modelID, ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT,
		BaseUrl: a.upstream.URL + "/v1", ModelId: modelID}
}

func (a *api) create(modelID, key string) *controlv1.Model {
	resp, err := a.models.CreateModel(context.Background(), connect.NewRequest(&controlv1.CreateModelRequest{
		Settings: a.chatSettings(modelID), ApiKey: key, Enabled: true}))
	Expect(err).NotTo(HaveOccurred())
	return resp.Msg.GetModel()
}

// test runs a connection test and returns every progress message.
func (a *api) test(id string) []*controlv1.TestModelResponse {
	stream, err := a.models.TestModel(context.Background(), connect.NewRequest(&controlv1.TestModelRequest{Id: id}))
	Expect(err).NotTo(HaveOccurred())
	var out []*controlv1.TestModelResponse
	for stream.Receive() {
		out = append(out, stream.Msg())
	}
	Expect(stream.Err()).NotTo(HaveOccurred())
	return out
}

func (a *api) setDetailed(on bool) {
	_, err := a.setting.UpdateSettings(context.Background(), connect.NewRequest(&controlv1.UpdateSettingsRequest{
		Settings: &controlv1.Settings{DetailedMode: on}}))
	Expect(err).NotTo(HaveOccurred())
}

// HaveConnectCode matches a Connect error with the given code.
func HaveConnectCode(code connect.Code) types.GomegaMatcher {
	return WithTransform(func(err error) connect.Code {
		var ce *connect.Error
		if errors.As(err, &ce) {
			return ce.Code()
		}
		return connect.CodeUnknown
	}, Equal(code))
}

// at is a fixed instant for records made by hand.
var at = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func mustRequest(method, target string) *http.Request {
	return httptest.NewRequest(method, target, nil)
}

// auditLog is an in-memory ports.AuditLog, newest entry first.
type auditLog struct {
	mu      sync.Mutex
	entries []audit.Entry
}

func (l *auditLog) AppendAudit(_ context.Context, e audit.Entry) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e.Seq = int64(len(l.entries) + 1)
	l.entries = append([]audit.Entry{e}, l.entries...)
	return e.Seq, nil
}

func (l *auditLog) AuditEntries(context.Context, ports.AuditQuery) ([]audit.Entry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]audit.Entry(nil), l.entries...), nil
}

// lines lists the entries as "actor action target", newest first.
func (l *auditLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, e := range l.entries {
		out = append(out, e.Actor.UserID+" "+e.Action+" "+e.Target)
	}
	return out
}
