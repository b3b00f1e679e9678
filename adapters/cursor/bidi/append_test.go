package bidi_test

import (
	"context"
	"encoding/hex"
	"strings"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/bidi"
	"keygate/adapters/cursor/cursortest"
	agentv1 "keygate/gen/cursor/agent/v1"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
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

var _ = Describe("A forwarded append delivered to a replica taking its key", func() {
	forwarded := func(seqno int64, msg *agentv1.AgentClientMessage) []byte {
		data, err := bidi.EncodeAppendData(msg)
		Expect(err).NotTo(HaveOccurred())
		req := connect.NewRequest(&aiserverv1.BidiAppendRequest{Data: data, AppendSeqno: seqno,
			RequestId: &aiserverv1.BidiRequestId{RequestId: "r1"}})
		req.Header().Set("X-Client", "cursor")
		payload, err := bidi.EncodeForwarded(context.Background(), req)
		Expect(err).NotTo(HaveOccurred())
		return payload
	}

	It("may open a turn when its seqno is 0, and cannot otherwise", func() {
		Expect(bidi.MayOpen(forwarded(0, cursortest.RunRequest("c1", "m1", "hi")))).To(BeTrue())
		Expect(bidi.MayOpen(forwarded(2, cursortest.ExecStreamClose(1)))).To(BeFalse())
		Expect(bidi.MayOpen([]byte{0xff})).To(BeTrue(), "one that does not parse is not ruled out")
	})
})
