package frame_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/frame"
)

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

var _ = Describe("UnaryBody", func() {
	// 0x0a is field 1, length-delimited: a plausible protobuf body.
	bare := []byte{0x0a, 0x03, 'a', 'b', 'c'}

	DescribeTable("yields the bare protobuf whatever the client wrapped it in",
		func(body []byte, encoding string) {
			got, err := frame.UnaryBody(context.Background(), bytes.NewReader(body), encoding, frame.Limits{})
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(bare))
		},
		Entry("a bare body", bare, ""),
		Entry("an enveloped body", frame.Encode(0, bare), ""),
		Entry("an enveloped body with a gzip frame", frame.EncodeGzip(0, bare), ""),
		Entry("a gzip body", gz(bare), "gzip"),
		Entry("a gzip enveloped body", gz(frame.Encode(0, bare)), "gzip"),
		Entry("identity encoding", bare, "identity"),
	)

	It("keeps a body whose length prefix does not match as bare", func() {
		odd := []byte{0x00, 0x00, 0x00, 0x00, 0x09, 0x01}
		got, err := frame.UnaryBody(context.Background(), bytes.NewReader(odd), "", frame.Limits{})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(odd))
	})

	It("refuses an unknown content encoding", func() {
		_, err := frame.UnaryBody(context.Background(), bytes.NewReader(bare), "br", frame.Limits{})
		Expect(err).To(MatchError(ContainSubstring(`unsupported content encoding "br"`)))
	})

	It("refuses a body beyond the limit", func() {
		_, err := frame.UnaryBody(context.Background(), bytes.NewReader(make([]byte, 100)), "", frame.Limits{MaxSize: 10})
		var tooLarge *frame.TooLargeError
		Expect(errors.As(err, &tooLarge)).To(BeTrue())
	})
})

var _ = Describe("NormalizeUnary", func() {
	var (
		seen     []byte
		seenType string
		h        http.Handler
	)

	BeforeEach(func() {
		seen, seenType = nil, ""
		h = frame.NormalizeUnary(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen, _ = io.ReadAll(r.Body)
			seenType = r.Header.Get("Content-Type")
			Expect(r.Header.Get("Content-Encoding")).To(BeEmpty())
			w.WriteHeader(http.StatusOK)
		}), frame.Limits{MaxSize: 1024})
	})

	It("hands the wrapped handler a bare, uncompressed body", func() {
		req := httptest.NewRequest(http.MethodPost, "/x", bytes.NewReader(gz(frame.Encode(0, []byte{0x0a, 0x00}))))
		req.Header.Set("Content-Encoding", "gzip")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		Expect(rec.Code).To(Equal(http.StatusOK))
		Expect(seen).To(Equal([]byte{0x0a, 0x00}))
	})

	DescribeTable("labels the body application/proto for the unary handler",
		func(contentType, want string) {
			req := httptest.NewRequest(http.MethodPost, "/x", bytes.NewReader(frame.Encode(0, []byte{0x0a, 0x00})))
			if contentType != "" {
				req.Header.Set("Content-Type", contentType)
			}
			h.ServeHTTP(httptest.NewRecorder(), req)
			Expect(seenType).To(Equal(want))
		},
		Entry("when it came as application/proto", "application/proto", "application/proto"),
		Entry("when it came labelled as a stream", "application/connect+proto", "application/proto"),
		Entry("when it came without a content type", "", "application/proto"),
		Entry("but leaves JSON alone", "application/json", "application/json"),
	)

	It("answers a broken gzip body with a Connect invalid_argument error", func() {
		req := httptest.NewRequest(http.MethodPost, "/x", bytes.NewReader([]byte("nope")))
		req.Header.Set("Content-Encoding", "gzip")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		Expect(rec.Code).To(Equal(http.StatusBadRequest))
		Expect(rec.Body.String()).To(ContainSubstring(`"code":"invalid_argument"`))
		Expect(seen).To(BeNil())
	})

	It("answers an oversized body with resource_exhausted", func() {
		req := httptest.NewRequest(http.MethodPost, "/x", bytes.NewReader(make([]byte, 4096)))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		Expect(rec.Body.String()).To(ContainSubstring(`"code":"resource_exhausted"`))
	})
})

var _ = Describe("Reading a body of an announced length", func() {
	It("makes one buffer of the announced size for a body that arrives whole", func() {
		body := bytes.Repeat([]byte("0a"), 46<<10)
		got, err := frame.ReadAll(bytes.NewReader(body), int64(len(body)))
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(body))
		Expect(cap(got)).To(Equal(len(body) + 1))
	})

	It("holds no more than MaxPresize for a length announced and not sent", func() {
		got, err := frame.ReadAll(bytes.NewReader([]byte("ab")), 32<<20)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal([]byte("ab")))
		Expect(cap(got)).To(BeNumerically("<=", frame.MaxPresize+1))
	})

	It("grows past the announced length for a longer body", func() {
		body := bytes.Repeat([]byte{7}, 3*frame.MaxPresize)
		got, err := frame.ReadAll(bytes.NewReader(body), 10)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal(body))
	})
})
