package threatspec_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	"keygate/app/config"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

// The AWS credentials an administrator stores for Bedrock: temporary ones,
// so the session token must stay as secret as the secret key.
const (
	awsKeyID   = "ASIATHREAT2900000001"
	awsSecret  = "threat29Secret/abcdefghijklmnopqrstuvwxyz01"
	awsSession = "threat29SessionTokenIQoJb3JpZ2luX2VjEXAMPLE"
)

// stderrCapture swaps the process's standard error, where Keygate's logger
// writes, for a pipe whose lines it keeps.
type stderrCapture struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	done chan struct{}
}

func captureStderr() *stderrCapture {
	r, w, err := os.Pipe()
	Expect(err).NotTo(HaveOccurred())
	c := &stderrCapture{done: make(chan struct{})}
	orig := os.Stderr
	os.Stderr = w
	go func() {
		defer close(c.done)
		b := make([]byte, 32<<10)
		for {
			n, err := r.Read(b)
			c.mu.Lock()
			c.buf.Write(b[:n])
			c.mu.Unlock()
			_, _ = orig.Write(b[:n])
			if err != nil {
				return
			}
		}
	}()
	DeferCleanup(func() { os.Stderr = orig; _ = w.Close(); <-c.done })
	return c
}

func (c *stderrCapture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

var _ = Describe("Threat 29: the cloud credentials of a Bedrock provider leak through the API, the logs, the call records or the database", Ordered, func() {
	var (
		k          *stack
		logs       *stderrCapture
		bedrock    *providertest.Server
		providerID string
		modelID    string
	)
	BeforeAll(func() {
		logs = captureStderr()
		bedrock = providertest.NewServer()
		DeferCleanup(bedrock.Close)
		k = startKeygate(allowEgress(providerAddr(bedrock)), func(c *config.Config) { c.LogLevel = "debug" })
		var prov controlv1.CreateProviderResponse
		raw := k.must(root, controlv1connect.ProviderServiceCreateProviderProcedure, &controlv1.CreateProviderRequest{
			Settings: &controlv1.ProviderSettings{Name: "Bedrock", ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_BEDROCK_CONVERSE,
				BaseUrl: bedrock.URL, Cloud: &controlv1.CloudSettings{Region: "eu-west-1",
					CredentialSource: controlv1.CredentialSource_CREDENTIAL_SOURCE_KEYS}},
			Keys: []*controlv1.NewProviderKey{{ApiKey: awsKeyID + ":" + awsSecret + ":" + awsSession, Weight: 1}},
		}, &prov)
		Expect(raw).NotTo(ContainSubstring(awsSecret))
		Expect(raw).NotTo(ContainSubstring(awsSession))
		providerID = prov.GetProvider().GetId()
		var created controlv1.CreateModelResponse
		k.must(root, controlv1connect.ModelServiceCreateModelProcedure, &controlv1.CreateModelRequest{
			Settings: &controlv1.ModelSettings{DisplayName: "Claude on Bedrock", ProviderId: providerID,
				ModelId: "eu.anthropic.claude-sonnet-4-20250514-v1:0", SupportsTools: true},
			Enabled: true,
		}, &created)
		modelID = created.GetModel().GetId()
	})

	It("signs the connection test with the stored key: the provider sees a SigV4 signature and the session token, never the secret key", func(ctx SpecContext) {
		bedrock.Enqueue(providertest.EventStream(providertest.BedrockConverse(providertest.Turn{Text: providertest.Words("1 2 3"),
			Usage: providertest.Usage{Input: 5, Output: 3}})))
		res, err := k.testModel(ctx, root, modelID)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.GetOk()).To(BeTrue(), res.GetError())
		reqs := bedrock.Requests()
		Expect(reqs).To(HaveLen(1))
		Expect(reqs[0].Header.Get("Authorization")).To(HavePrefix("AWS4-HMAC-SHA256 Credential=" + awsKeyID + "/"))
		Expect(reqs[0].Header.Get("Authorization")).To(ContainSubstring("/eu-west-1/bedrock/aws4_request"))
		Expect(reqs[0].Header.Get("X-Amz-Security-Token")).To(Equal(awsSession))
		for _, vs := range reqs[0].Header {
			Expect(strings.Join(vs, ",")).NotTo(ContainSubstring(awsSecret))
		}
	})

	It("answers a failed call without the credentials, even when the provider echoes them", func(ctx SpecContext) {
		bedrock.Enqueue(providertest.Status(http.StatusForbidden,
			`{"message":"The security token `+awsSession+` with secret `+awsSecret+` is invalid"}`))
		res, err := k.testModel(ctx, root, modelID)
		Expect(err).NotTo(HaveOccurred())
		Expect(res.GetOk()).To(BeFalse())
		Expect(res.GetError()).NotTo(ContainSubstring(awsSecret))
	})

	It("never returns the credentials from the control API", func() {
		raw := k.must(root, controlv1connect.ProviderServiceListProvidersProcedure, &controlv1.ListProvidersRequest{}, &controlv1.ListProvidersResponse{})
		Expect(raw).To(ContainSubstring("eu-west-1"), "the clear settings are shown")
		Expect(raw).NotTo(ContainSubstring(awsSecret))
		Expect(raw).NotTo(ContainSubstring(awsSession))
		raw = k.must(root, controlv1connect.CallServiceListCallsProcedure, &controlv1.ListCallsRequest{}, &controlv1.ListCallsResponse{})
		Expect(raw).NotTo(ContainSubstring(awsSecret))
		Expect(raw).NotTo(ContainSubstring(awsSession))
	})

	It("stores the credentials sealed, the account settings in clear", func(ctx SpecContext) {
		var cloud, keys string
		k.dbRow(ctx, "SELECT cloud FROM providers WHERE id = $1", []any{providerID}, &cloud)
		Expect(cloud).To(ContainSubstring(`"region":"eu-west-1"`))
		k.dbRow(ctx, "SELECT string_agg(encode(sealed_key, 'escape'), ' ') FROM provider_keys WHERE provider_id = $1", []any{providerID}, &keys)
		Expect(keys).NotTo(BeEmpty())
		for _, secret := range []string{awsKeyID, awsSecret, awsSession} {
			Expect(keys).NotTo(ContainSubstring(secret))
			Expect(cloud).NotTo(ContainSubstring(secret))
		}
		var calls string
		k.dbRow(ctx, "SELECT coalesce(string_agg(c::text, ' '), '') FROM call_records c", nil, &calls)
		Expect(calls).NotTo(ContainSubstring(awsSecret))
		Expect(calls).NotTo(ContainSubstring(awsSession))
	})

	It("logs neither the secret key nor the session token, at debug level", func() {
		_, _ = io.WriteString(os.Stderr, "") // the pipe is live
		Expect(logs.String()).NotTo(BeEmpty(), "Keygate logged at debug level")
		Expect(logs.String()).NotTo(ContainSubstring(awsSecret))
		Expect(logs.String()).NotTo(ContainSubstring(awsSession))
	})
})
