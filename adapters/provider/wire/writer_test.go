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

	It("writes numbers in their shortest form, each a JSON number that reads back equal", func() {
		for _, f := range []float64{0, 0.2, 1, 0.7, 1.5, 2, 1e-7, 123456789.25} {
			var w wire.Writer
			w.BeginArray()
			w.Float(f)
			w.EndArray()
			var back []float64
			Expect(json.Unmarshal(w.B, &back)).To(Succeed(), "%s", w.B)
			Expect(back).To(Equal([]float64{f}))
		}
		var w wire.Writer
		w.BeginObject()
		w.Key("t")
		w.Float(0.2)
		w.EndObject()
		Expect(string(w.B)).To(Equal(`{"t":0.2}`))
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
			_, err := wire.ParseExtras([]byte(`{"`+field+`":1}`), []string{"model", "messages"})
			Expect(err).To(MatchError(wire.ErrReservedParam))
		},
		Entry("the first", "model"), Entry("the last", "messages"),
	)

	It("accepts only a JSON object", func() {
		_, err := wire.ParseExtras([]byte(`[1]`), nil)
		Expect(err).To(MatchError(wire.ErrInvalidJSON))
	})

	It("replaces a field the adapter writes in place and appends the rest in configured order, for every body", func() {
		e, err := wire.ParseExtras([]byte(`{"z":true,"max_tokens":5,"a":{"b": 1}}`), nil)
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

var _ = Describe("Members", func() {
	collect := func(obj string) (map[string]string, error) {
		got := map[string]string{}
		err := wire.Members([]byte(obj), func(k, v []byte) bool { got[string(k)] = string(v); return true })
		return got, err
	}

	It("yields each key with its raw value, nested containers and padding included", func() {
		got, err := collect(` {"type":"content_block_delta", "index" : 12,"delta":{"type":"text_delta","text":"a\"}]"},"n":null,"l":[1,{"x":[]}]}   `)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(map[string]string{"type": `"content_block_delta"`, "index": "12",
			"delta": `{"type":"text_delta","text":"a\"}]"}`, "n": "null", "l": `[1,{"x":[]}]`}))
	})

	DescribeTable("rejects malformed objects",
		func(obj string) {
			_, err := collect(obj)
			Expect(err).To(MatchError(wire.ErrSyntax))
		},
		Entry("a truncated object", `{"a":1`),
		Entry("a missing colon", `{"a" 1}`),
		Entry("mismatched brackets", `{"a":[1}`),
		Entry("an unterminated string", `{"a":"x}`),
		Entry("trailing garbage", `{"a":1} x`),
		Entry("not an object", `[1]`),
	)

	It("reads strings with and without escapes like encoding/json", func() {
		for _, raw := range []string{`"plain"`, `"tab\tquote\"u\u00e9"`, `"ü🚀"`} {
			var want string
			Expect(json.Unmarshal([]byte(raw), &want)).To(Succeed())
			Expect(wire.Str([]byte(raw))).To(Equal(want))
		}
	})
})

var _ = Describe("Str", func() {
	DescribeTable("decodes like encoding/json",
		func(raw string) {
			var want string
			Expect(json.Unmarshal([]byte(raw), &want)).To(Succeed())
			Expect(wire.Str([]byte(raw))).To(Equal(want))
		},
		Entry("every short escape", `"\" \\ \/ \b \f \n \r \t"`),
		Entry("a BMP escape", `"caf\u00e9 \u4e16"`),
		Entry("a surrogate pair", `"rocket \ud83d\ude80!"`),
		Entry("a lone surrogate", `"bad \ud83d end"`),
		Entry("raw multi-byte text next to escapes", `"世界\n🚀"`),
	)

	DescribeTable("rejects what encoding/json rejects",
		func(raw string) {
			_, err := wire.Str([]byte(raw))
			Expect(err).To(MatchError(wire.ErrSyntax))
		},
		Entry("an unknown escape", `"\q"`),
		Entry("a short unicode escape", `"\u12"`),
		Entry("a raw control character", "\"a\x01b\""),
		Entry("no quotes", `abc`),
	)
})
