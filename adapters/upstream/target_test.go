package upstream_test

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/upstream"
)

var _ = DescribeTable("upstream.Target",
	func(header, path, want string) {
		r, err := http.NewRequest(http.MethodPost, "http://keygate.internal"+path, nil)
		Expect(err).NotTo(HaveOccurred())
		if header != "" {
			r.Header.Set(upstream.HeaderUpstreamURL, header)
		}
		u, err := upstream.Target(r, "")
		if want == "" {
			Expect(err).To(MatchError(upstream.ErrForeignUpstream))
			return
		}
		Expect(err).NotTo(HaveOccurred())
		Expect(u.String()).To(Equal(want))
	},
	Entry("the original URL the proxy recorded wins", "https://api3.cursor.sh/aiserver.v1.AiService/X?a=1", "/ignored",
		"https://api3.cursor.sh/aiserver.v1.AiService/X?a=1"),
	Entry("without it the path and query go to api2.cursor.sh", "", "/aiserver.v1.AiService/X?b=2",
		"https://api2.cursor.sh/aiserver.v1.AiService/X?b=2"),
	Entry("the agent host on HTTP/2 is a Cursor host", "https://agentn.api5.cursor.sh/agent.v1.AgentService/Run", "/",
		"https://agentn.api5.cursor.sh/agent.v1.AgentService/Run"),
	Entry("plain HTTP is refused", "http://api2.cursor.sh/x", "/", ""),
	Entry("a host outside cursor.sh is refused", "https://evil.example/x", "/", ""),
	Entry("a look-alike suffix is refused", "https://cursor.sh.evil.example/x", "/", ""),
	Entry("credentials in the URL are refused", "https://user:pw@api2.cursor.sh/x", "/", ""),
)

var _ = DescribeTable("upstream.IsCursorHost",
	func(host string, want bool) { Expect(upstream.IsCursorHost(host)).To(Equal(want)) },
	Entry("the main API host", "api2.cursor.sh", true),
	Entry("a host with a port", "api2.cursor.sh:443", true),
	Entry("the apex domain", "cursor.sh", true),
	Entry("any case and a trailing dot", "METRICS.Cursor.SH.", true),
	Entry("cursor.com is not intercepted", "cursor.com", false),
	Entry("a name that only ends in the same letters", "notcursor.sh", false),
)
