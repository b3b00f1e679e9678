package bidi_test

import (
	"encoding/hex"
	"testing"

	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/bidi"
	"keygate/adapters/cursor/cursortest"
)

// FuzzDecodeAppendData feeds arbitrary BidiAppend data: decoding must never
// panic, an accepted message always has its oneof set, and it survives a
// proto round trip unchanged (unknown fields included).
func FuzzDecodeAppendData(f *testing.F) {
	for _, m := range []proto.Message{cursortest.RunRequest("c", "m", "hi"), cursortest.Heartbeat(), cursortest.Cancel("stop")} {
		b, _ := proto.Marshal(m)
		f.Add(hex.EncodeToString(b))
	}
	f.Add("not hex")
	f.Add("0a")
	f.Fuzz(func(t *testing.T, data string) {
		msg, _, ok := bidi.DecodeAppendData(data)
		if !ok {
			return
		}
		if msg.GetMessage() == nil {
			t.Fatal("accepted a message without its oneof")
		}
		b, err := proto.Marshal(msg)
		if err != nil {
			t.Fatalf("re-marshal: %v", err)
		}
		again, _, ok := bidi.DecodeAppendData(hex.EncodeToString(b))
		if !ok || !proto.Equal(msg, again) {
			t.Fatal("round trip changed the message")
		}
	})
}
