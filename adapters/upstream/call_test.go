package upstream_test

import (
	"context"
	"errors"
	"io"
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"keygate/adapters/upstream"
)

var _ = Describe("Forwarder.Call", func() {
	var header http.Header

	BeforeEach(func() {
		header = http.Header{}
		header.Set(upstream.HeaderUpstreamURL, "https://api3.cursor.sh/aiserver.v1.AiService/AvailableModels")
		header.Set("Authorization", "Bearer cursor-jwt")
		header.Set("Content-Encoding", "gzip")
		header.Set("Content-Length", "999")
	})

	It("makes a unary call on the host the client addressed and keeps unknown answer fields", func() {
		var seenReq wrapperspb.StringValue
		fwd, got, _ := newForwarder(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/proto")
			answer, _ := proto.Marshal(wrapperspb.String("cursor models"))
			answer = protowire.AppendTag(answer, 99, protowire.VarintType)
			answer = protowire.AppendVarint(answer, 7)
			_, _ = w.Write(answer)
		}, upstream.Options{})
		var resp wrapperspb.StringValue
		err := fwd.Call(context.Background(), "/aiserver.v1.AiService/AvailableModels", header, wrapperspb.String("which models?"), &resp)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.GetValue()).To(Equal("cursor models"))
		Expect(resp.ProtoReflect().GetUnknown()).NotTo(BeEmpty())

		var s seen
		Expect(got).To(Receive(&s))
		Expect(s.Host).To(Equal("api3.cursor.sh"))
		Expect(s.URI).To(Equal("/aiserver.v1.AiService/AvailableModels"))
		Expect(s.Header.Get("Authorization")).To(Equal("Bearer cursor-jwt"))
		Expect(s.Header.Get("Content-Type")).To(Equal("application/proto"))
		Expect(s.Header.Get("Content-Encoding")).To(BeEmpty(), "the body is re-encoded, not the client's")
		Expect(proto.Unmarshal([]byte(s.Body), &seenReq)).To(Succeed())
		Expect(seenReq.GetValue()).To(Equal("which models?"))
	})

	It("reports a non-200 answer as a status error", func() {
		fwd, _, _ := newForwarder(func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = io.WriteString(w, `{"code":"unauthenticated"}`)
		}, upstream.Options{})
		err := fwd.Call(context.Background(), "/aiserver.v1.AiService/AvailableModels", header, wrapperspb.String("q"), &wrapperspb.StringValue{})
		var status *upstream.CallStatusError
		Expect(errors.As(err, &status)).To(BeTrue())
		Expect(status.Status).To(Equal(http.StatusUnauthorized))
	})
})
