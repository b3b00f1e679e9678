package wire_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/wire"
)

var _ = Describe("Native (relaying a caller's own body)", func() {
	body := []byte(`{ "model" : "Fake Claude", "stream":false, "messages":[{"role":"user","content":"a\u00e9"}],
		"x_unknown":{"deep":[1,2,{"k":null}]}, "temperature":0.5 }`)

	It("copies every member as sent, replacing only what set names, in its place", func() {
		out, err := wire.Native(nil, body, []wire.Member{{Key: "model", Value: []byte(`"up-1"`)}, {Key: "stream", Value: []byte("true")}}, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).To(Equal(`{"model":"up-1","stream":true,"messages":[{"role":"user","content":"a\u00e9"}],` +
			`"x_unknown":{"deep":[1,2,{"k":null}]},"temperature":0.5}`))
	})

	It("appends set's members the body lacks, drops those set to nil, and lets configured extras win", func() {
		extras, err := wire.ParseExtras([]byte(`{"temperature":0,"top_k":5}`), nil)
		Expect(err).NotTo(HaveOccurred())
		out, err := wire.Native(nil, body, []wire.Member{{Key: "x_unknown"}, {Key: "stream_options", Value: []byte(`{"include_usage":true}`)}}, extras)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).To(MatchJSON(`{"model":"Fake Claude","stream":false,"messages":[{"role":"user","content":"aé"}],
			"temperature":0,"stream_options":{"include_usage":true},"top_k":5}`))
	})

	It("refuses a body that is not a JSON object", func() {
		_, err := wire.Native(nil, []byte(`[1]`), nil, nil)
		Expect(err).To(MatchError(wire.ErrSyntax))
	})
})
