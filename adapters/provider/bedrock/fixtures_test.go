package bedrock_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/providertest"
)

// The event-stream fixtures in adapters/provider/testdata are built here,
// message by message, from the event shapes Bedrock's API reference
// documents (ConverseStream's response events; InvokeModelWithResponseStream's
// chunk events around Anthropic's Messages stream events, with Bedrock's
// invocation metrics on message_stop), and encoded with the AWS SDK's own
// eventstream encoder. UPDATE_GOLDEN=1 writes them; otherwise the files must
// be what the encoder gives.
var fixtures = map[string][][2]string{
	"bedrock-converse-text-docs.eventstream": {
		{"messageStart", `{"p":"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0","role":"assistant"}`},
		{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":"Hello"},"p":"abcdefghijklm"}`},
		{"contentBlockDelta", `{"contentBlockIndex":0,"delta":{"text":" there!"},"p":"abcdefghijklmnopqrstu"}`},
		{"contentBlockStop", `{"contentBlockIndex":0,"p":"abcdefghijklmnopqrstuvwxyzABCDEFGH"}`},
		{"messageStop", `{"p":"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW","stopReason":"end_turn"}`},
		{"metadata", `{"metrics":{"latencyMs":412},"p":"abcdefghijklmnopqrstuvwxyzABCDEF","usage":{"cacheReadInputTokens":1024,"cacheWriteInputTokens":0,"inputTokens":12,"outputTokens":5,"totalTokens":1041}}`},
	},
	"bedrock-anthropic-text-docs.eventstream": anthropicChunks(
		`{"type":"message_start","message":{"id":"msg_bdrk_01FqmHz5Ng6nJ3Qd6Y1Qb4xA","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" there!"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":6}}`,
		`{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":12,"outputTokenCount":6,"invocationLatency":498,"firstByteLatency":301}}`,
	),
}

func anthropicChunks(events ...string) [][2]string {
	out := make([][2]string, len(events))
	for i, e := range events {
		out[i] = [2]string{"chunk", `{"bytes":"` + base64.StdEncoding.EncodeToString([]byte(e)) + `","p":"abcdefgh"}`}
	}
	return out
}

var _ = Describe("The event-stream fixtures", func() {
	It("are the SDK encoder's bytes of the documented events", func() {
		for name, events := range fixtures {
			var b []byte
			for _, e := range events {
				b = append(b, providertest.BedrockEvent(e[0], []byte(e[1]))...)
			}
			path := filepath.Join("..", "testdata", name)
			if os.Getenv("UPDATE_GOLDEN") == "1" {
				Expect(os.WriteFile(path, b, 0o644)).To(Succeed())
			}
			got, err := os.ReadFile(path)
			Expect(err).NotTo(HaveOccurred())
			Expect(bytes.Equal(got, b)).To(BeTrue(), name)
		}
	})
})
