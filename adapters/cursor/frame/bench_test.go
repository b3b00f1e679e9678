package frame_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
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

// BenchmarkReadBody reads a run request's body (a workspace's first
// BidiAppend: about 90 KB of hex) with its Content-Length.
func BenchmarkReadBody(b *testing.B) {
	body := bytes.Repeat([]byte("0a"), 46<<10)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodPost, "/aiserver.v1.BidiService/BidiAppend", bytes.NewReader(body))
		if _, err := frame.ReadBody(httptest.NewRecorder(), r, frame.Limits{MaxSize: 4 << 20}); err != nil {
			b.Fatal(err)
		}
	}
}
