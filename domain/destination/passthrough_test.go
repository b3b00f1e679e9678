package destination_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/domain/destination"
)

var _ = Describe("destination.Allowlist", func() {
	list := func(entries ...string) destination.Allowlist {
		l, err := destination.ParseAllowlist(entries)
		Expect(err).NotTo(HaveOccurred())
		return l
	}

	DescribeTable("admits a host only as an entry names it",
		func(entry, host string, port, defaultPort int, allowed bool) {
			Expect(list(entry).Allows(host, port, defaultPort)).To(Equal(allowed))
		},
		Entry("an exact name on the default port", "downloads.cursor.com", "downloads.cursor.com", 443, 443, true),
		Entry("whatever the case and a trailing dot", "Downloads.Cursor.com", "DOWNLOADS.cursor.com.", 443, 443, true),
		Entry("but not a subdomain of an exact name", "cursor.com", "evil.cursor.com", 443, 443, false),
		Entry("nor a name that merely ends the same way", "cursor.com", "notcursor.com", 443, 443, false),
		Entry("nor another port than the default", "downloads.cursor.com", "downloads.cursor.com", 5432, 443, false),
		Entry("a wildcard admits a subdomain", "*.cursorapi.com", "marketplace.cursorapi.com", 443, 443, true),
		Entry("and a deeper one", "*.cursorapi.com", "a.b.cursorapi.com", 443, 443, true),
		Entry("but not the domain itself", "*.cursorapi.com", "cursorapi.com", 443, 443, false),
		Entry("nor a look-alike suffix", "*.cursorapi.com", "evilcursorapi.com", 443, 443, false),
		Entry("an entry with a port admits that port", "git.corp.example:8443", "git.corp.example", 8443, 443, true),
		Entry("and only that port", "git.corp.example:8443", "git.corp.example", 443, 443, false),
		Entry("plain HTTP's default is its own", "mirror.example", "mirror.example", 80, 80, true),
		Entry("an IP address matches itself", "192.0.2.10:8080", "192.0.2.10", 8080, 80, true),
		Entry("an IPv6 address with a port", "[2001:db8::1]:8443", "2001:db8::1", 8443, 443, true),
		Entry("an IPv6 address in brackets without one", "[2001:db8::1]", "2001:db8::1", 443, 443, true),
		Entry("an IPv6 address bare", "2001:db8::1", "2001:db8::1", 443, 443, true),
	)

	It("admits nothing when empty", func() {
		Expect(destination.Allowlist(nil).Allows("example.com", 443, 443)).To(BeFalse())
	})

	DescribeTable("refuses an entry that is not a host pattern",
		func(entry string) {
			_, err := destination.ParseAllowlist([]string{"ok.example", entry})
			Expect(err).To(MatchError(ContainSubstring(entry)))
		},
		Entry("a bare wildcard", "*"),
		Entry("a wildcard over a top-level domain", "*.com"),
		Entry("a wildcard inside a name", "a.*.example.com"),
		Entry("a URL", "https://example.com"),
		Entry("a path", "example.com/x"),
		Entry("an empty entry", " "),
		Entry("port zero", "example.com:0"),
		Entry("a port out of range", "example.com:70000"),
		Entry("a named port", "example.com:https"),
		Entry("an empty label", "a..example.com"),
	)

	It("prints each entry as the operator wrote it", func() {
		Expect(list("*.Cursorapi.com", "x.example:8443")[0].String()).To(Equal("*.cursorapi.com"))
		Expect(list("*.Cursorapi.com", "x.example:8443")[1].String()).To(Equal("x.example:8443"))
	})
})
