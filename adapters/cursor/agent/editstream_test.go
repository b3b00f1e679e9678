package agent_test

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/agent"
)

// feedIn feeds args to a stream for keys in pieces of size bytes and
// returns what it yielded, each piece checked to be valid UTF-8.
func feedIn(args string, size int, keys ...string) string {
	s := agent.NewArgStream(keys...)
	var out strings.Builder
	for i := 0; i < len(args); i += size {
		piece := s.Feed(args[i:min(i+size, len(args))])
		Expect(utf8.ValidString(piece)).To(BeTrue(), "a yielded piece is valid UTF-8: %q", piece)
		out.WriteString(piece)
	}
	return out.String()
}

var _ = Describe("The streamed content of a Write or StrReplace", func() {
	content := "package main\n\tfmt.Println(\"hi\") // \\ é 😀 </script>\n"
	raw, _ := json.Marshal(map[string]any{"path": "main.go", "contents": content})
	escaped := `{"path":"main.go","contents":"package main\n\tfmt.Println(\"hi\") // \\ \u00e9 \ud83d\ude00 \u003c/script\u003e\n"}`

	DescribeTable("decodes the content argument exactly, however the model's deltas cut the JSON",
		func(args string, size int) { Expect(feedIn(args, size, "contents")).To(Equal(content)) },
		Entry("raw UTF-8, one byte at a time", string(raw), 1),
		Entry("raw UTF-8, three bytes at a time", string(raw), 3),
		Entry("\\u escapes and a surrogate pair, one byte at a time", escaped, 1),
		Entry("\\u escapes, seven bytes at a time", escaped, 7),
		Entry("all at once", escaped, len(escaped)),
	)

	It("skips every other argument, nested values and their strings included", func() {
		args := `{"meta":{"contents":"no","n":[1,"}",{"a":"]"}]},"flag":true,"n":12,"contents":"yes","after":"no"}`
		Expect(feedIn(args, 1, "contents")).To(Equal("yes"))
	})

	It("yields nothing when the arguments hold no content argument", func() {
		Expect(feedIn(`{"path":"a.txt","old_string":"x"}`, 2, "new_string")).To(BeEmpty())
	})
})
