package bedrock_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/bedrock"
	"keygate/adapters/provider/protocol"
	"keygate/domain/llm"
	"keygate/ports"
)

var _ = Describe("Bedrock discovery", func() {
	BeforeEach(hermetic)

	It("lists the on-demand streaming foundation models and every inference profile, page by page, signed", func() {
		var mu sync.Mutex
		var seen []string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.URL.Path+"?"+r.URL.RawQuery+" "+r.Header.Get("Authorization")[:min(len(r.Header.Get("Authorization")), 40)])
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			switch {
			case r.URL.Path == "/foundation-models":
				_, _ = io.WriteString(w, `{"modelSummaries":[
 {"modelId":"anthropic.claude-3-5-haiku-20241022-v1:0","modelName":"Claude 3.5 Haiku","providerName":"Anthropic","responseStreamingSupported":true,"inferenceTypesSupported":["ON_DEMAND"],"outputModalities":["TEXT"]},
 {"modelId":"amazon.titan-embed-text-v2:0","responseStreamingSupported":false,"inferenceTypesSupported":["ON_DEMAND"],"outputModalities":["EMBEDDING"]},
 {"modelId":"meta.llama3-3-70b-instruct-v1:0","responseStreamingSupported":true,"inferenceTypesSupported":["ON_DEMAND"],"outputModalities":["TEXT"]}]}`)
			case r.URL.Path == "/inference-profiles" && r.URL.Query().Get("nextToken") == "":
				_, _ = io.WriteString(w, `{"inferenceProfileSummaries":[{"inferenceProfileId":"us.anthropic.claude-sonnet-4-20250514-v1:0","inferenceProfileName":"US Claude Sonnet 4","inferenceProfileArn":"arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-sonnet-4-20250514-v1:0","status":"ACTIVE","type":"SYSTEM_DEFINED","models":[]}],"nextToken":"page-2"}`)
			case r.URL.Path == "/inference-profiles":
				_, _ = io.WriteString(w, `{"inferenceProfileSummaries":[{"inferenceProfileId":"global.anthropic.claude-opus-4-1-20250805-v1:0","status":"ACTIVE","type":"SYSTEM_DEFINED","models":[]}]}`)
			default:
				http.NotFound(w, r)
			}
		}))
		DeferCleanup(srv.Close)
		ids, err := bedrock.Converse().Models.Discover(context.Background(), srv.URL, protocol.Credentials{
			Key: "AKIADISCOVER00000001:discoverSecret/abcdefghijklmnopqrstuvwx", HTTP: srv.Client(),
			Cloud: ports.CloudSettings{Region: "us-east-1"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(ids).To(Equal([]string{"anthropic.claude-3-5-haiku-20241022-v1:0", "global.anthropic.claude-opus-4-1-20250805-v1:0",
			"meta.llama3-3-70b-instruct-v1:0", "us.anthropic.claude-sonnet-4-20250514-v1:0"}), "the embedding model, which does not stream, is left out")
		Expect(seen).To(HaveLen(3))
		Expect(seen[0]).To(HavePrefix("/foundation-models?byInferenceType=ON_DEMAND&byOutputModality=TEXT AWS4-HMAC-SHA256 Credential=AKIADISCOVER"))
		Expect(seen[2]).To(ContainSubstring("nextToken=page-2"))
	})

	It("classifies a refused listing as an authorization failure", func() {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("X-Amzn-ErrorType", "AccessDeniedException")
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"message":"User is not authorized to perform: bedrock:ListFoundationModels"}`)
		}))
		DeferCleanup(srv.Close)
		_, err := bedrock.Converse().Models.Discover(context.Background(), srv.URL, protocol.Credentials{
			Key: "AKIADISCOVER00000001:discoverSecret/abcdefghijklmnopqrstuvwx", HTTP: srv.Client(),
			Cloud: ports.CloudSettings{Region: "us-east-1"}})
		var perr *llm.ProviderError
		Expect(errors.As(err, &perr)).To(BeTrue(), "%v", err)
		Expect(perr.Class).To(Equal(llm.ErrorAuthorization))
		Expect(perr.Message).To(ContainSubstring("AccessDenied"))
	})
})
