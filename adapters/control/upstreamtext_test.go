package control_test

import (
	"context"
	"net/http"
	"strings"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
	"keygate/domain/access"
	"keygate/domain/identity"
	controlv1 "keygate/gen/keygate/control/v1"
)

var _ = Describe("Upstream error text in discovery and connection tests", func() {
	const key = "sk-echo-0123456789abcdef"
	var (
		a   *api
		ctx context.Context
	)
	admin := access.Principal{Identity: identity.Identity{UserID: "root"}, Role: access.Admin}
	// hostile is an error body that echoes the key (also split by a
	// zero-width character), a bearer token, terminal escapes and line
	// breaks, and goes on for 8 KiB.
	hostile := `{"error":{"message":"Incorrect API key provided: ` + key + ` (also s` + "\u200b" + `k-echo-0123456789abcdef) ` +
		`Authorization: Bearer internal-token-abcdef \u001b[31mred\u001b[0m\r\nX-Injected: 1 ` + strings.Repeat("secret internal page ", 400) + `"}}`
	expectSanitised := func(msg string) {
		GinkgoHelper()
		Expect(msg).To(ContainSubstring("HTTP 401"))
		Expect(msg).To(ContainSubstring("Incorrect API key provided"))
		Expect(msg).NotTo(ContainSubstring("0123456789abcdef"))
		Expect(msg).NotTo(ContainSubstring("internal-token"))
		Expect(msg).NotTo(ContainSubstring("\x1b"))
		Expect(msg).NotTo(ContainSubstring("[31m"))
		Expect(msg).NotTo(ContainSubstring(`\u001b`))
		Expect(msg).NotTo(ContainSubstring("\n"))
		Expect(msg).NotTo(ContainSubstring("\r"))
		Expect(len(msg)).To(BeNumerically("<", 600), "status and a short reason, not the body")
	}
	BeforeEach(func() { a, ctx = newAPIWith(as(admin)), context.Background() })

	It("shows a failed discovery's status and a short, sanitised reason, never the body", func() {
		a.upstream.Enqueue(providertest.Status(http.StatusUnauthorized, hostile))
		_, err := a.models.DiscoverModels(ctx, connect.NewRequest(&controlv1.DiscoverModelsRequest{
			ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: a.upstream.URL + "/v1", ApiKey: key}))
		Expect(err).To(HaveConnectCode(connect.CodeUnavailable))
		expectSanitised(err.Error())
	})

	It("shows a failed connection test's status and a short, sanitised reason, never the body", func() {
		m := a.create("gpt-a", key)
		a.upstream.Enqueue(providertest.Status(http.StatusUnauthorized, hostile))
		res := a.test(m.GetId())
		result := res[len(res)-1].GetResult()
		Expect(result.GetOk()).To(BeFalse())
		Expect(result.GetError()).To(HavePrefix("the provider rejected the API key"))
		expectSanitised(result.GetError())
	})
})
