package audit_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/audit"
	"keygate/domain/identity"
)

var _ = DescribeTable("audit.IsSecretField",
	func(name string, secret bool) { Expect(audit.IsSecretField(name)).To(Equal(secret)) },
	Entry("an API key is secret", "apiKey", true),
	Entry("a sealed API key is secret", "sealed_api_key", true),
	Entry("a client secret is secret", "clientSecret", true),
	Entry("an Authorization header is secret", "Authorization", true),
	Entry("a gateway token is secret", "token", true),
	Entry("a token count is not secret", "maxOutputTokens", false),
	Entry("a model id is not secret", "modelId", false),
)

var _ = Describe("audit.Mask", func() {
	It("replaces every secret value, also in nested objects, and keeps everything else", func() {
		before, after, err := audit.Mask(nil, []byte(`{"displayName":"GPT","apiKey":"sk-live-1","customHeaders":{"Authorization":"Bearer x","X-Team":"a"},"maxOutputTokens":4096}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(before).To(BeNil())
		Expect(after).To(MatchJSON(`{"displayName":"GPT","apiKey":"[set]","customHeaders":{"Authorization":"[set]","X-Team":"a"},"maxOutputTokens":4096}`))
		Expect(string(after)).NotTo(ContainSubstring("sk-live"))
	})

	DescribeTable("says what happened to a secret without showing it",
		func(old, new, want string) {
			_, after, err := audit.Mask([]byte(`{"apiKey":`+old+`}`), []byte(`{"apiKey":`+new+`}`))
			Expect(err).NotTo(HaveOccurred())
			Expect(after).To(MatchJSON(`{"apiKey":` + want + `}`))
		},
		Entry("a replaced key reads [changed]", `"sk-1"`, `"sk-2"`, `"[changed]"`),
		Entry("a kept key reads [set]", `"sk-1"`, `"sk-1"`, `"[set]"`),
		Entry("a removed key stays empty", `"sk-1"`, `""`, `""`),
		Entry("a first key reads [set]", `""`, `"sk-2"`, `"[set]"`),
	)

	It("rejects a document that is not JSON", func() {
		_, _, err := audit.Mask([]byte(`{`), nil)
		Expect(err).To(HaveOccurred())
	})
})

var _ = DescribeTable("Entry.Validate",
	func(e audit.Entry, ok bool) {
		if ok {
			Expect(e.Validate()).To(Succeed())
		} else {
			Expect(e.Validate()).To(MatchError(audit.ErrIncomplete))
		}
	},
	Entry("an actor and an action make an entry", audit.Entry{Actor: identity.Identity{UserID: "a"}, Action: "model.update"}, true),
	Entry("an entry without an actor is incomplete", audit.Entry{Action: "model.update"}, false),
	Entry("an entry without an action is incomplete", audit.Entry{Actor: identity.Identity{UserID: "a"}}, false),
)
