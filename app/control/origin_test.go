package control_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/control"
)

var _ = DescribeTable("Origin, the scheme, host and port a stored key is bound to",
	func(raw, want string) {
		got, err := control.Origin(raw)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(want))
	},
	Entry("path and query do not count", "https://api.openai.com/v1/chat?x=1", "https://api.openai.com"),
	Entry("case does not count", "HTTPS://API.OpenAI.com/v1", "https://api.openai.com"),
	Entry("the default port is the same origin", "https://api.openai.com:443/v1", "https://api.openai.com"),
	Entry("another port is another origin", "https://api.openai.com:8443/v1", "https://api.openai.com:8443"),
	Entry("http's default port", "http://127.0.0.1:80/", "http://127.0.0.1"),
	Entry("a local server", "http://127.0.0.1:8000/v1", "http://127.0.0.1:8000"),
	Entry("IPv6 keeps its brackets", "http://[::1]:8000/v1", "http://[::1]:8000"),
)
