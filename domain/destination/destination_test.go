package destination_test

import (
	"net/netip"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/destination"
)

var _ = Describe("An outbound allow-list entry", func() {
	DescribeTable("is read in the forms an operator writes",
		func(in, canonical string) {
			e, err := destination.Parse(in)
			Expect(err).NotTo(HaveOccurred())
			Expect(e.String()).To(Equal(canonical))
		},
		Entry("an IPv4 address", "10.0.0.7", "10.0.0.7"),
		Entry("an IPv6 address", "fd00::7", "fd00::7"),
		Entry("an IPv4-mapped IPv6 address, as IPv4", "::ffff:10.0.0.7", "10.0.0.7"),
		Entry("a CIDR range, masked", "10.1.2.3/8", "10.0.0.0/8"),
		Entry("an IPv6 range", "fd00::/8", "fd00::/8"),
		Entry("an IP with a port", "10.0.0.7:11434", "10.0.0.7:11434"),
		Entry("an IPv6 address with a port", "[fd00::7]:8000", "[fd00::7]:8000"),
		Entry("a host name, in lower case", "Models.Corp.", "models.corp"),
		Entry("a host name with a port", "ollama.internal:11434", "ollama.internal:11434"),
		Entry("a wildcard name", "*.models.corp", "*.models.corp"),
		Entry("surrounding spaces", "  localhost  ", "localhost"),
	)

	DescribeTable("refuses what would be a mistake or open everything",
		func(in, why string) {
			_, err := destination.Parse(in)
			Expect(err).To(MatchError(ContainSubstring(why)))
			Expect(err).To(MatchError(ContainSubstring(in)), "the message names the entry")
		},
		Entry("a URL", "http://10.0.0.7:8000", "is a URL"),
		Entry("the IPv4 range of everything", "0.0.0.0/0", "covers every address"),
		Entry("the IPv6 range of everything", "::/0", "covers every address"),
		Entry("the unspecified IPv4 address", "0.0.0.0", "unspecified"),
		Entry("the unspecified IPv6 address", "[::]:80", "unspecified"),
		Entry("a port out of range", "10.0.0.7:70000", "invalid port"),
		Entry("port 0", "models.corp:0", "invalid port"),
		Entry("a mistyped IP", "10.0.0.300", "want an IP"),
		Entry("a name with a space", "my host", "want an IP"),
		Entry("a mapped IPv6 range", "::ffff:10.0.0.0/104", "IPv4-mapped"),
		Entry("an IPv6 zone", "fe80::1%eth0", "zone"),
	)

	It("reports every bad entry of a list at once", func() {
		_, err := destination.ParseList([]string{"10.0.0.7", "http://x", "0.0.0.0/0"})
		Expect(err).To(MatchError(ContainSubstring("http://x")))
		Expect(err).To(MatchError(ContainSubstring("0.0.0.0/0")))
		_, err = destination.ParseList([]string{"x", ""})
		Expect(err).To(MatchError(ContainSubstring("is empty")))
	})

	DescribeTable("names a connection",
		func(entry, host, ip string, port int, matches bool) {
			e, err := destination.Parse(entry)
			Expect(err).NotTo(HaveOccurred())
			var addr netip.Addr
			if ip != "" {
				addr = netip.MustParseAddr(ip)
			}
			Expect(e.Matches(host, addr, uint16(port))).To(Equal(matches))
		},
		Entry("a range by the address dialled", "10.0.0.0/8", "models.corp", "10.9.8.7", 443, true),
		Entry("a range, not an address outside it", "10.0.0.0/8", "models.corp", "11.0.0.1", 443, false),
		Entry("an IP, also in its mapped form", "10.0.0.7", "10.0.0.7", "::ffff:10.0.0.7", 80, true),
		Entry("an IP with a port, only on that port", "10.0.0.7:8000", "10.0.0.7", "10.0.0.7", 8001, false),
		Entry("a name, by the name asked for", "models.corp", "MODELS.corp.", "10.0.0.7", 443, true),
		Entry("a name, not another name resolving to the same address", "models.corp", "evil.example", "10.0.0.7", 443, false),
		Entry("a name with a port, only on that port", "models.corp:8000", "models.corp", "10.0.0.7", 443, false),
		Entry("a wildcard, for names under it", "*.corp", "models.corp", "10.0.0.7", 443, true),
		Entry("a wildcard, not the bare domain", "*.corp", "corp", "10.0.0.7", 443, false),
		Entry("a wildcard, not a name merely ending alike", "*.corp", "evilcorp", "10.0.0.7", 443, false),
	)
})
