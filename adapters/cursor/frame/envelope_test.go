package frame_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing/iotest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/cursor/frame"
)

// chunked yields data in reads of n bytes, so frames span reads.
func chunked(data []byte, n int) io.Reader {
	var parts []io.Reader
	for len(data) > 0 {
		k := min(n, len(data))
		parts = append(parts, bytes.NewReader(data[:k]))
		data = data[k:]
	}
	return iotest.OneByteReader(io.MultiReader(parts...))
}

func readAll(r *frame.Reader) ([]frame.Frame, error) {
	var out []frame.Frame
	for {
		f, err := r.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, f)
	}
}

var _ = Describe("Reader", func() {
	var stream []byte

	BeforeEach(func() {
		stream = frame.Append(nil, 0, []byte("first"))
		stream = frame.Append(stream, 0, []byte(""))
		stream = append(stream, frame.EncodeGzip(0, []byte("compressed"))...)
		stream = frame.Append(stream, frame.FlagEndStream, []byte("{}"))
	})

	It("decodes several frames from one read", func() {
		frames, err := readAll(frame.NewReader(bytes.NewReader(stream), 0))
		Expect(err).NotTo(HaveOccurred())
		Expect(frames).To(HaveLen(4))
		Expect(string(frames[0].Payload)).To(Equal("first"))
		Expect(frames[1].Payload).To(BeEmpty())
		Expect(frames[3].EndStream()).To(BeTrue())
	})

	It("decodes frames that span many reads", func() {
		frames, err := readAll(frame.NewReader(chunked(stream, 3), 0))
		Expect(err).NotTo(HaveOccurred())
		Expect(frames).To(HaveLen(4))
		Expect(string(frames[2].Payload)).To(Equal("compressed"))
	})

	It("gunzips client frames with flag 0x01 and keeps the flag", func() {
		frames, _ := readAll(frame.NewReader(bytes.NewReader(stream), 0))
		Expect(frames[2].Compressed()).To(BeTrue())
		Expect(string(frames[2].Payload)).To(Equal("compressed"))
	})

	It("refuses a frame larger than the limit before reading its payload", func() {
		big := frame.Encode(0, make([]byte, 11))
		_, err := frame.NewReader(bytes.NewReader(big[:frame.HeaderSize]), 10).Next(context.Background())
		var tooLarge *frame.TooLargeError
		Expect(errors.As(err, &tooLarge)).To(BeTrue())
		Expect(tooLarge.Limit).To(BeEquivalentTo(10))
		Expect(err.Error()).To(ContainSubstring("exceeds the 10 byte limit"))
	})

	It("refuses a gzip frame that inflates beyond the limit", func() {
		bomb := frame.EncodeGzip(0, make([]byte, 4096))
		_, err := frame.NewReader(bytes.NewReader(bomb), 1024).Next(context.Background())
		var tooLarge *frame.TooLargeError
		Expect(errors.As(err, &tooLarge)).To(BeTrue())
	})

	It("accepts a frame of exactly the limit", func() {
		f, err := frame.NewReader(bytes.NewReader(frame.Encode(0, make([]byte, 10))), 10).Next(context.Background())
		Expect(err).NotTo(HaveOccurred())
		Expect(f.Payload).To(HaveLen(10))
	})

	It("defaults the limit to 32 MiB: a 16 MiB message as BidiAppend's hex", func() {
		Expect(frame.DefaultMaxSize).To(Equal(32 << 20))
	})

	DescribeTable("a stream cut inside a frame is truncated, not a clean end",
		func(cut int) {
			_, err := frame.NewReader(bytes.NewReader(stream[:cut]), 0).Next(context.Background())
			Expect(err).To(MatchError(frame.ErrTruncated))
		},
		Entry("inside the header", 3),
		Entry("inside the payload", frame.HeaderSize+2),
	)

	It("reports a bad gzip payload", func() {
		_, err := frame.NewReader(bytes.NewReader(frame.Encode(frame.FlagCompressed, []byte("not gzip"))), 0).Next(context.Background())
		Expect(err).To(MatchError(ContainSubstring("gzip")))
	})
})
