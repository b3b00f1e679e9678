package wire_test

import (
	"bytes"
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/wire"
)

// stdlib encodes s the way encoding/json does with HTML escaping off.
func stdlib(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	Expect(enc.Encode(s)).To(Succeed())
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

var _ = Describe("AppendString", func() {
	DescribeTable("escapes exactly as encoding/json without HTML escaping",
		func(s string) {
			Expect(string(wire.AppendString(nil, s))).To(Equal(stdlib(s)))
		},
		Entry("plain ASCII", "hello world"),
		Entry("quotes and backslashes", `say "C:\path"`),
		Entry("control characters", "a\nb\tc\rd\be\ff\x00g\x1f"),
		Entry("HTML-significant characters stay literal", "<tag> & </tag>"),
		Entry("multi-byte UTF-8", "héllo — 世界 🚀"),
		Entry("line and paragraph separators", "a\u2028b\u2029c"),
		Entry("invalid UTF-8 becomes U+FFFD", "bad\xffbyte\xc3"),
		Entry("DEL is not escaped", "a\x7fb"),
	)
})

var _ = Describe("Writer", func() {
	It("places commas between members and elements at every depth", func() {
		var w wire.Writer
		w.BeginObject()
		w.StringField("a", "x")
		w.Key("b")
		w.BeginArray()
		w.Int(1)
		w.BeginObject()
		w.EndObject()
		w.Bool(false)
		w.Null()
		w.EndArray()
		w.Key("c")
		Expect(w.Raw([]byte(` { "k" : [ 1 , "a b" ] } `))).To(Succeed())
		w.EndObject()
		Expect(string(w.B)).To(Equal(`{"a":"x","b":[1,{},false,null],"c":{"k":[1,"a b"]}}`))
	})

	It("refuses raw bytes that are not JSON", func() {
		var w wire.Writer
		Expect(w.Raw([]byte(`{"a":`))).To(MatchError(wire.ErrInvalidJSON))
		Expect(w.B).To(BeEmpty())
	})

	It("compacts raw JSON keeping key order and string contents", func() {
		c, err := wire.Compact([]byte("{\"z\": 1,\n \"a\": \"x  y\\\" }\"}"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(c)).To(Equal(`{"z":1,"a":"x  y\" }"}`))
	})
})

var _ = Describe("Extras", func() {
	DescribeTable("may not replace a reserved field",
		func(field string) {
			_, err := wire.ParseExtras([]byte(`{"` + field + `":1}`))
			Expect(err).To(MatchError(wire.ErrReservedParam))
		},
		Entry("model", "model"), Entry("stream", "stream"), Entry("messages", "messages"),
		Entry("input", "input"), Entry("tools", "tools"), Entry("system", "system"),
		Entry("instructions", "instructions"), Entry("prompt_cache_key", "prompt_cache_key"),
	)

	It("accepts only a JSON object", func() {
		_, err := wire.ParseExtras([]byte(`[1]`))
		Expect(err).To(MatchError(wire.ErrInvalidJSON))
	})

	It("replaces a field the adapter writes in place and appends the rest in configured order, for every body", func() {
		e, err := wire.ParseExtras([]byte(`{"z":true,"max_tokens":5,"a":{"b": 1}}`))
		Expect(err).NotTo(HaveOccurred())
		write := func() string {
			var w wire.Writer
			w.BeginObject()
			w.StringField("model", "m")
			if w.Field(e, "max_tokens") {
				w.Int(100)
			}
			w.Rest(e)
			w.EndObject()
			return string(w.B)
		}
		Expect(write()).To(Equal(`{"model":"m","max_tokens":5,"z":true,"a":{"b":1}}`))
		Expect(write()).To(Equal(`{"model":"m","max_tokens":5,"z":true,"a":{"b":1}}`))
	})
})
