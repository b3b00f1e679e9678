package frame_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"keygate/adapters/cursor/frame"
)

// FuzzReader feeds arbitrary bytes to the envelope decoder: it must never
// panic, never return a payload beyond the limit, and re-encode every plain
// frame it accepted to the bytes it read.
func FuzzReader(f *testing.F) {
	f.Add(frame.Encode(0, []byte{0x0a, 0x01, 'x'}))
	f.Add(append(frame.Encode(0, nil), frame.Encode(frame.FlagEndStream, []byte("{}"))...))
	f.Add(frame.EncodeGzip(0, []byte("hello")))
	f.Add([]byte{0x00, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0x01, 0x00, 0x00, 0x00, 0x03, 0x1f, 0x8b, 0x08})
	const limit = 1 << 12
	f.Fuzz(func(t *testing.T, data []byte) {
		r := frame.NewReader(bytes.NewReader(data), limit)
		consumed := 0
		for {
			fr, err := r.Next(context.Background())
			if errors.Is(err, io.EOF) || err != nil {
				return
			}
			if len(fr.Payload) > limit {
				t.Fatalf("payload of %d bytes passed a %d byte limit", len(fr.Payload), limit)
			}
			if !fr.Compressed() {
				enc := frame.Encode(fr.Flags, fr.Payload)
				if !bytes.Equal(enc, data[consumed:consumed+len(enc)]) {
					t.Fatalf("re-encoding differs at offset %d", consumed)
				}
				consumed += len(enc)
			} else {
				return // compressed size is not recoverable from the frame
			}
		}
	})
}

// FuzzUnaryBody feeds arbitrary bodies and encodings to the unary body
// normaliser: it must never panic nor exceed the limit.
func FuzzUnaryBody(f *testing.F) {
	f.Add([]byte{0x0a, 0x00}, "")
	f.Add(frame.Encode(0, []byte{0x0a, 0x00}), "")
	f.Add(frame.EncodeGzip(0, []byte{0x0a, 0x00}), "gzip")
	f.Add([]byte{0x1f, 0x8b}, "gzip")
	const limit = 1 << 12
	f.Fuzz(func(t *testing.T, body []byte, encoding string) {
		out, err := frame.UnaryBody(context.Background(), bytes.NewReader(body), encoding, frame.Limits{MaxSize: limit})
		if err == nil && len(out) > limit+frame.HeaderSize {
			t.Fatalf("body of %d bytes passed a %d byte limit", len(out), limit)
		}
	})
}
