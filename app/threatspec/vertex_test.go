package threatspec_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	"keygate/app/config"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

var _ = Describe("Threat 30: a Google service-account key, or the access tokens it buys, leaks (database, API, call records, logs, a token endpoint of someone else's)", Ordered, func() {
	var (
		k          *stack
		logs       *stderrCapture
		tokens     *httptest.Server
		issued     atomic.Int64
		evil       *attacker
		key        string
		privateB64 string
		modelID    string
	)
	const location = "/v1/projects/acme-vertex/locations/us-east5"

	newKey := func(tokenURI string) (string, string) {
		priv, err := rsa.GenerateKey(rand.Reader, 2048)
		Expect(err).NotTo(HaveOccurred())
		der, err := x509.MarshalPKCS8PrivateKey(priv)
		Expect(err).NotTo(HaveOccurred())
		p := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
		raw, err := json.MarshalIndent(map[string]string{"type": "service_account", "project_id": "acme-vertex",
			"private_key_id": "threat30", "private_key": p, "client_email": "keygate@acme-vertex.iam.gserviceaccount.com",
			"token_uri": tokenURI}, "", "  ")
		Expect(err).NotTo(HaveOccurred())
		lines := strings.Split(p, "\n")
		return string(raw), lines[3] // a line from the middle of the key's base64
	}

	vertexProvider := func(name, key string) string {
		var created controlv1.CreateProviderResponse
		k.must(root, controlv1connect.ProviderServiceCreateProviderProcedure, &controlv1.CreateProviderRequest{
			Settings: &controlv1.ProviderSettings{Name: name, ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_VERTEX_ANTHROPIC,
				BaseUrl: k.provider.URL + location, Cloud: &controlv1.CloudSettings{Project: "acme-vertex", Region: "us-east5",
					CredentialSource: controlv1.CredentialSource_CREDENTIAL_SOURCE_KEYS}},
			Keys: []*controlv1.NewProviderKey{{ApiKey: key, Weight: 1}}}, &created)
		var model controlv1.CreateModelResponse
		k.must(root, controlv1connect.ModelServiceCreateModelProcedure, &controlv1.CreateModelRequest{
			Settings: &controlv1.ModelSettings{DisplayName: name, ProviderId: created.GetProvider().GetId(), ModelId: "claude-sonnet-4-5@20250929"},
			Enabled:  true}, &model)
		return model.GetModel().GetId()
	}

	BeforeAll(func() {
		logs = captureStderr()
		tokens = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
			w.Header().Set("Content-Type", "application/json")
			_, _ = fmt.Fprintf(w, `{"access_token":"ya29.threat30-token-%d","token_type":"Bearer","expires_in":3600}`, issued.Add(1))
		}))
		DeferCleanup(tokens.Close)
		evil = newAttacker()
		k = startKeygate(allowEgress(tokens.Listener.Addr().String()), func(c *config.Config) { c.LogLevel = "debug" })
		key, privateB64 = newKey(tokens.URL + "/token")
		modelID = vertexProvider("Vertex", key)
	})

	It("takes the key file as pasted, stores it sealed, and calls Vertex with a bearer token it bought with it", func(ctx SpecContext) {
		var sealed []byte
		k.dbRow(ctx, "SELECT k.sealed_key FROM provider_keys k JOIN providers p ON p.id = k.provider_id WHERE p.name = $1", []any{"Vertex"}, &sealed)
		Expect(sealed).NotTo(BeEmpty())
		for _, secret := range []string{"PRIVATE KEY", privateB64, "keygate@acme-vertex"} {
			Expect(string(sealed)).NotTo(ContainSubstring(secret))
		}
		k.provider.Enqueue(providertest.Stream(providertest.AnthropicSSE(providertest.Turn{ID: "t", Text: providertest.Words("ok")})))
		res, err := k.testModel(ctx, root, modelID)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.GetOk()).To(BeTrue(), res.GetError())
		reqs := k.provider.Requests()
		Expect(reqs[len(reqs)-1].Header.Get("Authorization")).To(Equal("Bearer ya29.threat30-token-1"))
		Expect(string(reqs[len(reqs)-1].Body)).NotTo(ContainSubstring("PRIVATE KEY"))
	})

	It("never returns the key or a token through the API, to administrators either, nor keeps them in a detailed call record", func(ctx SpecContext) {
		k.must(root, controlv1connect.SettingServiceUpdateSettingsProcedure, &controlv1.UpdateSettingsRequest{
			Settings: &controlv1.Settings{DetailedMode: true}}, nil)
		k.provider.Enqueue(providertest.Stream(providertest.AnthropicSSE(providertest.Turn{ID: "t2", Text: providertest.Words("ok")})))
		res, err := k.testModel(ctx, root, modelID)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.GetOk()).To(BeTrue(), res.GetError())
		var call controlv1.GetCallResponse
		raw := k.must(root, controlv1connect.CallServiceGetCallProcedure, &controlv1.GetCallRequest{CallId: res.GetCallId()}, &call)
		Expect(call.GetRequest().GetHeaders()).NotTo(BeEmpty(), "the request was recorded")
		for _, h := range call.GetRequest().GetHeaders() {
			Expect(strings.ToLower(h.GetName())).NotTo(Equal("authorization"))
		}
		raw += k.must(root, controlv1connect.ProviderServiceListProvidersProcedure, &controlv1.ListProvidersRequest{}, nil)
		raw += k.must(root, controlv1connect.ModelServiceListModelsProcedure, &controlv1.ListModelsRequest{}, nil)
		raw += k.must(root, controlv1connect.CallServiceListCallsProcedure, &controlv1.ListCallsRequest{}, nil)
		raw += k.must(mallory, controlv1connect.ModelServiceListModelsProcedure, &controlv1.ListModelsRequest{}, nil)
		for _, secret := range []string{"PRIVATE KEY", privateB64, "ya29.threat30"} {
			Expect(raw).NotTo(ContainSubstring(secret))
		}
	})

	It("reaches a key's token endpoint only through the outbound policy: one it refuses gets nothing, and the error names no secret", func(ctx SpecContext) {
		stolen, stolenB64 := newKey(evil.URL + "/token")
		id := vertexProvider("Vertex elsewhere", stolen)
		res, err := k.testModel(ctx, root, id)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.GetOk()).To(BeFalse())
		Expect(res.GetError()).NotTo(ContainSubstring(stolenB64))
		Expect(res.GetError()).NotTo(ContainSubstring("PRIVATE KEY"))
		Expect(evil.hits.Load()).To(BeZero(), "the signed assertion never left for an address the policy refuses")
	})

	It("writes neither the key nor a token to the log, at debug level", func() {
		out := logs.String()
		Expect(out).NotTo(BeEmpty(), "the log was captured")
		for _, secret := range []string{"PRIVATE KEY", privateB64, "ya29.threat30"} {
			Expect(out).NotTo(ContainSubstring(secret))
		}
	})
})
