package agentspec_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/encoding/protojson"

	"keygate/adapters/provider/providertest"
	"keygate/domain/llm"
	controlv1 "keygate/gen/keygate/control/v1"
)

// The AWS access key of the Bedrock specs: a fake, in AWS's shapes.
const (
	bedrockKeyID  = "AKIAAGENTSPEC0000001"
	bedrockSecret = "agentspecSecretKey/0123456789abcdefghijKL"
)

// addBedrockModel configures a Bedrock provider in us-east-1 with the
// static access key, on a fake Bedrock endpoint, and a model on it.
func (k *keygate) addBedrockModel(kind llm.ProviderKind, upstream string) {
	GinkgoHelper()
	p := providertest.NewServer()
	DeferCleanup(p.Close)
	k.providers[kind] = p
	var prov controlv1.CreateProviderResponse
	k.control("/keygate.control.v1.ProviderService/CreateProvider", &controlv1.CreateProviderRequest{
		Settings: &controlv1.ProviderSettings{Name: "Bedrock " + string(kind), ProviderKind: providerKind(kind), BaseUrl: p.URL,
			Cloud: &controlv1.CloudSettings{Region: "us-east-1", CredentialSource: controlv1.CredentialSource_CREDENTIAL_SOURCE_KEYS}},
		Keys: []*controlv1.NewProviderKey{{ApiKey: bedrockKeyID + ":" + bedrockSecret, Weight: 1}},
	}, &prov)
	var created controlv1.CreateModelResponse
	k.control("/keygate.control.v1.ModelService/CreateModel", &controlv1.CreateModelRequest{
		Settings: &controlv1.ModelSettings{DisplayName: "Team " + string(kind), ProviderId: prov.GetProvider().GetId(),
			ModelId: upstream, SupportsTools: true},
		Enabled: true,
	}, &created)
	k.models[kind] = created.GetModel().GetId()
}

// expectSigned re-signs a recorded request with the SDK's SigV4 signer at
// the time it was signed and expects the same Authorization: the request
// Bedrock got was signed for us-east-1's bedrock service with the key.
func expectSigned(r providertest.Request, host string) {
	GinkgoHelper()
	auth := r.Header.Get("Authorization")
	Expect(auth).To(HavePrefix("AWS4-HMAC-SHA256 Credential=" + bedrockKeyID + "/"))
	Expect(auth).To(ContainSubstring("/us-east-1/bedrock/aws4_request"))
	Expect(auth).NotTo(ContainSubstring(bedrockSecret))
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	Expect(err).NotTo(HaveOccurred())
	u := &url.URL{Scheme: "http", Host: host, Path: r.Path, RawQuery: r.Query}
	u.RawPath = strings.ReplaceAll(r.Path, ":", "%3A")
	req, err := http.NewRequest(r.Method, u.String(), bytes.NewReader(r.Body))
	Expect(err).NotTo(HaveOccurred())
	_, signed, _ := strings.Cut(auth, "SignedHeaders=")
	signed, _, _ = strings.Cut(signed, ",")
	for _, h := range strings.Split(signed, ";") {
		if h != "host" && h != "content-length" {
			req.Header.Set(h, r.Header.Get(h))
		}
	}
	req.ContentLength = int64(len(r.Body))
	hash := sha256Hex(r.Body)
	Expect(v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: bedrockKeyID, SecretAccessKey: bedrockSecret},
		req, hash, "bedrock", "us-east-1", at)).To(Succeed())
	Expect(req.Header.Get("Authorization")).To(Equal(auth))
}

// bedrockCalls are the call records of kind's conversation calls by index.
func (k *keygate) bedrockCalls(kind llm.ProviderKind) map[int32]*controlv1.Call {
	GinkgoHelper()
	var calls controlv1.ListCallsResponse
	k.control("/keygate.control.v1.CallService/ListCalls", &controlv1.ListCallsRequest{}, &calls)
	byIndex := map[int32]*controlv1.Call{}
	for _, c := range calls.GetCalls() {
		if c.GetConversationId() != "" && c.GetModel().GetProviderKind() == providerKind(kind) {
			byIndex[c.GetProviderCallIndex()] = c
		}
	}
	return byIndex
}

var _ = Describe("A Cursor turn on AWS Bedrock, added as a protocol like any other", func() {
	const model = "us.anthropic.claude-sonnet-4-20250514-v1:0"

	It("runs a tool round on ConverseStream's event stream, signed with SigV4, with cache points and cache usage on the call records", func() {
		k := startKeygate(newWeb(), nil)
		k.addBedrockModel(llm.ProviderBedrockConverse, model)
		t := k.turn(llm.ProviderBedrockConverse, userMessage("conv-bedrock-1", "What is in a.txt?", nil), nil,
			providertest.Turn{Text: []string{"Let me ", "look."}, Calls: []providertest.Call{{ID: "tooluse_r1a", Name: "Read", Arguments: []string{`{"path":`, `"a.txt"}`}}},
				Usage: providertest.Usage{Input: 900, CacheWrite: 2048, Output: 40}},
			providertest.Turn{Text: []string{"There is ", "no a.txt."},
				Usage: providertest.Usage{Input: 60, CacheRead: 2048, Output: 5}})

		Expect(t.requests).To(HaveLen(2))
		host := strings.TrimPrefix(k.providers[llm.ProviderBedrockConverse].URL, "http://")
		for _, r := range t.requests {
			Expect(r.Method).To(Equal("POST"))
			Expect(r.Path).To(Equal("/model/" + model + "/converse-stream"))
			Expect(r.Header.Get("Accept")).To(Equal("application/vnd.amazon.eventstream"))
			Expect(r.Header.Get("X-Api-Key")).To(BeEmpty())
			expectSigned(r, host)
		}
		first, second := t.requests[0].Body, t.requests[1].Body
		Expect(bytes.HasPrefix(second, bytes.TrimSuffix(first, []byte("]}")))).To(BeTrue(),
			"the second cycle's body extends the first's byte for byte:\n%s\n%s", first, second)
		Expect(bytes.Count(first, []byte(`{"cachePoint":{"type":"default"}}`))).To(Equal(2), "after the system prompt and after the tools")
		Expect(string(second)).To(ContainSubstring(`{"toolUse":{"toolUseId":"tooluse_r1a","name":"Read","input":{"path":"a.txt"}}}`))
		Expect(string(second)).To(ContainSubstring(`{"toolResult":{"toolUseId":"tooluse_r1a","content":[{"text":`))

		Expect(t.completed("tooluse_r1a").GetReadToolCall()).NotTo(BeNil())
		Expect(strings.Join(t.st.Texts(), "")).To(ContainSubstring("There is no a.txt."))

		byIndex := k.bedrockCalls(llm.ProviderBedrockConverse)
		Expect(byIndex).To(HaveLen(2))
		Expect(byIndex[0].GetFinishReason()).To(Equal("tool_use"))
		u0 := byIndex[0].GetUsage()
		Expect([]int64{u0.GetInputTokens(), u0.GetCacheWriteTokens(), u0.GetOutputTokens()}).To(Equal([]int64{900, 2048, 40}))
		u1 := byIndex[1].GetUsage()
		Expect([]int64{u1.GetInputTokens(), u1.GetCacheReadTokens(), u1.GetOutputTokens()}).To(Equal([]int64{60, 2048, 5}))
		Expect(byIndex[1].GetFinishReason()).To(Equal("stop"))
	})

	It("runs a tool round on Anthropic's Messages body through InvokeModelWithResponseStream", func() {
		k := startKeygate(newWeb(), nil)
		k.addBedrockModel(llm.ProviderBedrockAnthropic, model)
		t := k.turn(llm.ProviderBedrockAnthropic, userMessage("conv-bedrock-2", "What is in a.txt?", nil), nil,
			providertest.Turn{ID: "msg_bdrk_1", Model: "claude-sonnet-4-20250514", Calls: []providertest.Call{call("toolu_bdrk_1", "Read", `{"path":"a.txt"}`)},
				Usage: providertest.Usage{Input: 700, CacheWrite: 1024, Output: 30}},
			providertest.Turn{ID: "msg_bdrk_2", Model: "claude-sonnet-4-20250514", Text: []string{"Nothing ", "there."},
				Usage: providertest.Usage{Input: 50, CacheRead: 1024, Output: 4}})

		Expect(t.requests).To(HaveLen(2))
		host := strings.TrimPrefix(k.providers[llm.ProviderBedrockAnthropic].URL, "http://")
		for _, r := range t.requests {
			Expect(r.Path).To(Equal("/model/" + model + "/invoke-with-response-stream"))
			Expect(string(r.Body)).To(HavePrefix(`{"anthropic_version":"bedrock-2023-05-31","max_tokens":`))
			var top map[string]json.RawMessage
			Expect(json.Unmarshal(r.Body, &top)).To(Succeed())
			Expect(top).NotTo(HaveKey("model"), "the model is in the URL")
			Expect(top).NotTo(HaveKey("stream"), "the action streams")
			Expect(string(r.Body)).To(ContainSubstring(`"cache_control":{"type":"ephemeral"}`))
			expectSigned(r, host)
		}
		Expect(string(t.requests[1].Body)).To(ContainSubstring(`"tool_use_id":"toolu_bdrk_1"`))
		Expect(strings.Join(t.st.Texts(), "")).To(ContainSubstring("Nothing there."))

		byIndex := k.bedrockCalls(llm.ProviderBedrockAnthropic)
		Expect(byIndex).To(HaveLen(2))
		Expect(byIndex[0].GetFinishReason()).To(Equal("tool_use"))
		u1 := byIndex[1].GetUsage()
		Expect([]int64{u1.GetInputTokens(), u1.GetCacheReadTokens(), u1.GetOutputTokens()}).To(Equal([]int64{50, 1024, 4}))
	})
})

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

var _ = Describe("A Bedrock provider whose credentials come from a web identity token file", func() {
	It("needs no stored key: each call is signed with the role's credentials from STS, through the outbound policy", func() {
		// Off this machine's AWS settings; STS is a fake on loopback (a
		// laptop's policy allows it), named the way AWS's SDKs take a
		// service endpoint.
		for _, k := range []string{"AWS_CA_BUNDLE", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"} {
			GinkgoT().Setenv(k, "")
		}
		dir := GinkgoT().TempDir()
		GinkgoT().Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
		GinkgoT().Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
		var stsCalls atomic.Int32
		sts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			stsCalls.Add(1)
			w.Header().Set("Content-Type", "text/xml")
			_, _ = io.WriteString(w, `<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleWithWebIdentityResult><Credentials>
<AccessKeyId>ASIAWEBIDENTITY00001</AccessKeyId><SecretAccessKey>webIdentitySecret/0123456789abcdefghijkl</SecretAccessKey><SessionToken>webIdentitySession</SessionToken>
<Expiration>`+time.Now().Add(time.Hour).UTC().Format(time.RFC3339)+`</Expiration></Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>`)
		}))
		DeferCleanup(sts.Close)
		GinkgoT().Setenv("AWS_ENDPOINT_URL_STS", sts.URL)
		token := filepath.Join(dir, "token")
		Expect(os.WriteFile(token, []byte("projected-service-account-token"), 0o600)).To(Succeed())

		k := startKeygate(newWeb(), nil)
		p := providertest.NewServer()
		DeferCleanup(p.Close)
		k.providers[llm.ProviderBedrockConverse] = p
		settings := &controlv1.ProviderSettings{Name: "Bedrock via IRSA", ProviderKind: providerKind(llm.ProviderBedrockConverse), BaseUrl: p.URL,
			Cloud: &controlv1.CloudSettings{Region: "us-west-2", CredentialSource: controlv1.CredentialSource_CREDENTIAL_SOURCE_WEB_IDENTITY,
				RoleArn: "arn:aws:iam::123456789012:role/keygate"}}
		By("refusing web identity without its token file")
		body, err := protojson.Marshal(&controlv1.CreateProviderRequest{Settings: settings})
		Expect(err).NotTo(HaveOccurred())
		r, err := http.Post(k.Base+"/keygate.control.v1.ProviderService/CreateProvider", "application/json", bytes.NewReader(body))
		Expect(err).NotTo(HaveOccurred())
		_ = r.Body.Close()
		Expect(r.StatusCode).To(Equal(http.StatusBadRequest))

		settings.Cloud.WebIdentityTokenFile = token
		var prov controlv1.CreateProviderResponse
		k.control("/keygate.control.v1.ProviderService/CreateProvider", &controlv1.CreateProviderRequest{Settings: settings}, &prov)
		Expect(prov.GetProvider().GetKeys()).To(BeEmpty())
		var created controlv1.CreateModelResponse
		k.control("/keygate.control.v1.ModelService/CreateModel", &controlv1.CreateModelRequest{
			Settings: &controlv1.ModelSettings{DisplayName: "Claude via IRSA", ProviderId: prov.GetProvider().GetId(),
				ModelId: "us.anthropic.claude-sonnet-4-20250514-v1:0", SupportsTools: true}, Enabled: true}, &created)
		k.models[llm.ProviderBedrockConverse] = created.GetModel().GetId()

		t := k.turn(llm.ProviderBedrockConverse, userMessage("conv-bedrock-irsa", "Hello?", nil), nil,
			providertest.Turn{Text: []string{"Hello ", "from Bedrock."}, Usage: providertest.Usage{Input: 20, Output: 4}})
		Expect(t.requests).To(HaveLen(1))
		Expect(t.requests[0].Header.Get("Authorization")).To(HavePrefix("AWS4-HMAC-SHA256 Credential=ASIAWEBIDENTITY00001/"))
		Expect(t.requests[0].Header.Get("Authorization")).To(ContainSubstring("/us-west-2/bedrock/aws4_request"))
		Expect(t.requests[0].Header.Get("X-Amz-Security-Token")).To(Equal("webIdentitySession"))
		Expect(stsCalls.Load()).To(BeEquivalentTo(1))
		Expect(strings.Join(t.st.Texts(), "")).To(ContainSubstring("Hello from Bedrock."))
	})
})
