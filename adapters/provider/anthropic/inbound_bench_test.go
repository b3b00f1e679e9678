package anthropic_test

import (
	"strings"
	"testing"

	"keygate/adapters/provider/anthropic"
	"keygate/adapters/provider/protocol"
)

// BenchmarkRelay50KB is what a same-protocol call of the compatible API
// adds before the provider is dialled for a 50 KB Messages body: reading it
// into the translated request and writing the relayed body.
func BenchmarkRelay50KB(b *testing.B) {
	var msgs strings.Builder
	for i := 0; msgs.Len() < 50<<10; i++ {
		if i > 0 {
			msgs.WriteString(",")
		}
		msgs.WriteString(`{"role":"user","content":[{"type":"text","text":"` + strings.Repeat("lorem ipsum dolor sit amet ", 40) + `"}]},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"a.go"}}]}`)
	}
	body := []byte(`{"model":"m","max_tokens":1000,"stream":true,"system":[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}}],` +
		`"messages":[` + msgs.String() + `],"metadata":{"user_id":"u"}}`)
	p := anthropic.Messages()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		in, err := anthropic.ParseInbound(body, "")
		if err != nil {
			b.Fatal(err)
		}
		in.Request.Model = "upstream"
		if buf, err = p.AppendRequest(buf[:0], in.Request, protocol.RequestOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
