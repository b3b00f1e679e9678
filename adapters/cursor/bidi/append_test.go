package bidi_test

import (
	"encoding/hex"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/bidi"
	"keygate/adapters/cursor/cursortest"
)

var _ = Describe("DecodeAppendData", func() {
	It("decodes the lowercase hex of an AgentClientMessage", func() {
		data, err := bidi.EncodeAppendData(cursortest.RunRequest("c1", "m1", "hi"))
		Expect(err).NotTo(HaveOccurred())
		Expect(data).To(Equal(strings.ToLower(data)))
		msg, raw, ok := bidi.DecodeAppendData(data)
		Expect(ok).To(BeTrue())
		Expect(msg.GetRunRequest().GetRequestedModel().GetModelId()).To(Equal("m1"))
		Expect(hex.EncodeToString(raw)).To(Equal(data))
	})

	It("keeps unknown fields through a proto round trip", func() {
		raw, err := proto.Marshal(cursortest.Heartbeat())
		Expect(err).NotTo(HaveOccurred())
		raw = protowire.AppendTag(raw, 999, protowire.BytesType)
		raw = protowire.AppendString(raw, "from a newer client")
		msg, _, ok := bidi.DecodeAppendData(hex.EncodeToString(raw))
		Expect(ok).To(BeTrue())
		again, err := proto.Marshal(msg)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(again)).To(ContainSubstring("from a newer client"))
	})

	DescribeTable("is not an agent message",
		func(data string) {
			_, _, ok := bidi.DecodeAppendData(data)
			Expect(ok).To(BeFalse())
		},
		Entry("when data is not hex", "speech-to-text audio"),
		Entry("when the hex is not a protobuf", "ffffffff"),
		Entry("when no oneof is set", ""),
		Entry("when only an unknown field is set", hex.EncodeToString(protowire.AppendVarint(protowire.AppendTag(nil, 77, protowire.VarintType), 1))),
	)
})
