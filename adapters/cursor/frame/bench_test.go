package frame_test

import (
	"bytes"
	"context"
	"testing"

	"keygate/adapters/cursor/frame"
)

// BenchmarkReader decodes a stream of 1 KiB frames (reported, not asserted).
func BenchmarkReader(b *testing.B) {
	payload := bytes.Repeat([]byte{0x0a}, 1024)
	var stream []byte
	for range 64 {
		stream = frame.Append(stream, 0, payload)
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		r := frame.NewReader(bytes.NewReader(stream), 0)
		for range 64 {
			if _, err := r.Next(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
	}
}
