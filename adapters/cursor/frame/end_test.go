package frame_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/frame"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
)

func providerError() *connect.Error {
	ce := connect.NewError(connect.CodeUnavailable, errors.New("upstream said no"))
	det, err := connect.NewErrorDetail(&aiserverv1.ErrorDetails{
		Error:      aiserverv1.ErrorDetails_ERROR_PROVIDER_ERROR,
		Details:    &aiserverv1.CustomErrorDetails{Title: "Provider Error", Detail: "upstream said no", IsRetryable: proto.Bool(true)},
		IsExpected: proto.Bool(true),
	})
	Expect(err).NotTo(HaveOccurred())
	ce.AddDetail(det)
	return ce
}

var _ = Describe("End of stream", func() {
	It("is {} after success", func() {
		Expect(string(frame.EndPayload(nil))).To(Equal("{}"))
		f := frame.EndFrame(nil)
		Expect(f[0]).To(Equal(frame.FlagEndStream))
		Expect(string(f[frame.HeaderSize:])).To(Equal("{}"))
	})

	It("carries code, message and ErrorDetails as unpadded standard base64", func() {
		var doc map[string]map[string]any
		Expect(json.Unmarshal(frame.EndPayload(providerError()), &doc)).To(Succeed())
		e := doc["error"]
		Expect(e).To(HaveKeyWithValue("code", "unavailable"))
		Expect(e).To(HaveKeyWithValue("message", "upstream said no"))
		Expect(doc).NotTo(HaveKey("metadata"))
		detail := e["details"].([]any)[0].(map[string]any)
		Expect(detail).To(HaveKeyWithValue("type", "aiserver.v1.ErrorDetails"))
		value := detail["value"].(string)
		Expect(value).NotTo(HaveSuffix("="))
		raw, err := base64.RawStdEncoding.DecodeString(value)
		Expect(err).NotTo(HaveOccurred())
		var details aiserverv1.ErrorDetails
		Expect(proto.Unmarshal(raw, &details)).To(Succeed())
		Expect(details.GetError()).To(Equal(aiserverv1.ErrorDetails_ERROR_PROVIDER_ERROR))
		Expect(details.GetDetails().GetTitle()).To(Equal("Provider Error"))
	})

	It("leaves out an empty message and empty details", func() {
		payload := frame.EndPayload(connect.NewError(connect.CodeCanceled, errors.New("")))
		Expect(string(payload)).To(Equal(`{"error":{"code":"canceled"}}`))
	})

	It("sends a plain Go error as internal", func() {
		Expect(string(frame.EndPayload(errors.New("boom")))).To(Equal(`{"error":{"code":"internal","message":"boom"}}`))
	})

	It("round-trips through ParseEnd with details decodable by the generated type", func() {
		ce, err := frame.ParseEnd(frame.EndPayload(providerError()))
		Expect(err).NotTo(HaveOccurred())
		Expect(ce.Code()).To(Equal(connect.CodeUnavailable))
		Expect(ce.Message()).To(Equal("upstream said no"))
		Expect(ce.Details()).To(HaveLen(1))
		v, err := ce.Details()[0].Value()
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(BeAssignableToTypeOf(&aiserverv1.ErrorDetails{}))
		Expect(v.(*aiserverv1.ErrorDetails).GetDetails().GetDetail()).To(Equal("upstream said no"))
	})

	It("parses {} as success", func() {
		ce, err := frame.ParseEnd([]byte("{}"))
		Expect(err).NotTo(HaveOccurred())
		Expect(ce).To(BeNil())
	})

	It("reports malformed JSON", func() {
		_, err := frame.ParseEnd([]byte("{"))
		var malformed *frame.MalformedEndError
		Expect(errors.As(err, &malformed)).To(BeTrue())
	})
})
