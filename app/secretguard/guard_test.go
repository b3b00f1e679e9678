package secretguard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/secretguard"
	"keygate/domain/llm"
	"keygate/domain/secretscan"
	"keygate/ports"
)

const privateKey = `-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun
VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK
LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo
9z+40RQzuVaE8AkAFmxZzow3x+VJYKdjykkJ0iT9wCS0DRTXu269V264Vf/3jvre
dZm0iS0wVpK4VkaTt5ndEnqKJsO9Vqs3b1Dd2t0eYUKyrAaxDrl6ZBOXt9rQvkDg
EWOhpEf5gSYEpHUXTHRjO0cNnKr7vKe7MnDMaqjH2wIDAQABAoIBAQCjCbVs9lNh
-----END RSA PRIVATE KEY-----`

// conversation is an Agent-like request: a system prompt, a user
// message, a tool call and its result (a file with a key in it), and a
// closing user message.
func conversation(secretInResult string) llm.Request {
	return llm.Request{
		Model:        "m",
		Instructions: "You are a coding agent.",
		Messages: []llm.Message{
			{ID: "u1", Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "deploy with key " + awsKey + " please"}}},
			{ID: "a1", Role: llm.RoleAssistant, Assistant: &llm.Assistant{Text: "Reading the config.", Calls: []llm.ToolCall{
				{CallID: "c1", Name: "write", Arguments: []byte(`{"path":"creds","contents":"aws_access_key_id = ` + awsKey + `"}`)},
			}}},
			{ID: "t1", Role: llm.RoleTool, ToolResult: &llm.ToolResult{CallID: "c1", Name: "read", Content: "config:\n" + secretInResult + "\n"}},
		},
	}
}

func sent(c ports.ModelCall) string {
	b, err := json.Marshal(c.Request)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

var _ = Describe("Guard", func() {
	var (
		next    *capture
		reports []string
		mu      sync.Mutex
		report  secretguard.Report
	)
	BeforeEach(func() {
		next, reports = &capture{}, nil
		report = func(_ context.Context, call ports.ModelCall, action secretscan.Mode, fs []secretscan.Finding) {
			mu.Lock()
			defer mu.Unlock()
			reports = append(reports, fmt.Sprintf("%s %s %v", call.CallID, action, secretscan.Rules(fs)))
		}
	})

	Context("in redact mode", func() {
		var g *secretguard.Guard
		BeforeEach(func() { g = secretguard.New(next, newScanner(), secretscan.Redact, report) })

		It("sends no secret byte: user text, tool-call arguments, tool results and a native body", func() {
			req := conversation(privateKey)
			req.Native = &llm.Native{Kind: "x", Body: []byte(`{"messages":[{"role":"user","content":"deploy with key ` + awsKey + ` please"}]}`)}
			_, err := g.Stream(context.Background(), ports.ModelCall{CallID: "r:0", Request: req})
			Expect(err).NotTo(HaveOccurred())
			Expect(next.calls).To(HaveLen(1))
			out := sent(next.calls[0])
			Expect(out).NotTo(ContainSubstring(awsKey))
			Expect(out).NotTo(ContainSubstring("MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun"))
			Expect(string(next.calls[0].Request.Native.Body)).NotTo(ContainSubstring(awsKey))
			Expect(json.Valid(next.calls[0].Request.Native.Body)).To(BeTrue())
			Expect(json.Valid(next.calls[0].Request.Messages[1].Assistant.Calls[0].Arguments)).To(BeTrue())
			Expect(string(next.calls[0].Request.Messages[1].Assistant.Calls[0].Arguments)).NotTo(ContainSubstring(awsKey))
			Expect(next.calls[0].Request.Messages[0].Parts[0].Text).To(MatchRegexp(`^deploy with key \[REDACTED aws-access-token [0-9a-f]{8}\] please$`))
			Expect(next.calls[0].Request.Messages[2].ToolResult.Content).To(ContainSubstring("[REDACTED private-key "))
			// The caller's request is not changed under it.
			Expect(req.Messages[0].Parts[0].Text).To(ContainSubstring(awsKey))
			Expect(reports).To(Equal([]string{"r:0 redact [aws-access-token private-key]"}))
		})

		It("redacts a conversation to the same bytes turn after turn, on any replica with the same key", func() {
			turn1 := conversation("nothing secret here")
			turn2 := conversation("nothing secret here")
			turn2.Messages = append(turn2.Messages, llm.Message{ID: "u2", Role: llm.RoleUser, Parts: []llm.Part{{Kind: llm.PartText, Text: "and again " + awsKey}}})
			_, err := g.Stream(context.Background(), ports.ModelCall{CallID: "r:0", Request: turn1})
			Expect(err).NotTo(HaveOccurred())
			_, err = g.Stream(context.Background(), ports.ModelCall{CallID: "r:1", Request: turn2})
			Expect(err).NotTo(HaveOccurred())
			other := &capture{}
			_, err = secretguard.New(other, newScanner(), secretscan.Redact, nil).Stream(context.Background(), ports.ModelCall{Request: turn2})
			Expect(err).NotTo(HaveOccurred())

			first, _ := json.Marshal(next.calls[0].Request.Messages)
			second, _ := json.Marshal(next.calls[1].Request.Messages[:3])
			Expect(string(second)).To(Equal(string(first)), "the redacted prefix must stay byte-identical")
			Expect(sent(other.calls[0])).To(Equal(sent(next.calls[1])))
			// The second turn reports only what it scanned fresh: the new
			// message, not the history redacted on the first turn.
			Expect(reports).To(Equal([]string{"r:0 redact [aws-access-token]", "r:1 redact [aws-access-token]"}))
		})

		It("passes a clean request through as it is", func() {
			req := conversation("clean")
			req.Messages = req.Messages[2:]
			_, err := g.Stream(context.Background(), ports.ModelCall{Request: req})
			Expect(err).NotTo(HaveOccurred())
			Expect(sent(next.calls[0])).To(Equal(func() string { b, _ := json.Marshal(req); return string(b) }()))
			Expect(reports).To(BeEmpty())
		})

		It("scans a fill-in prompt (Tab)", func() {
			req := llm.Request{FillIn: &llm.FillIn{Prefix: "AWS_ACCESS_KEY_ID=" + awsKey + "\nAWS_REGION=", Suffix: "\n"}}
			_, err := g.Stream(context.Background(), ports.ModelCall{Request: req})
			Expect(err).NotTo(HaveOccurred())
			Expect(next.calls[0].Request.FillIn.Prefix).NotTo(ContainSubstring(awsKey))
		})

		It("keeps a native body valid JSON after redacting it", func() {
			req := llm.Request{Native: &llm.Native{Kind: "x", Body: []byte(`{"a":"` + awsKey + `"}`)}}
			_, err := g.Stream(context.Background(), ports.ModelCall{Request: req})
			Expect(err).NotTo(HaveOccurred(), "a plain key in a JSON string redacts cleanly")
			Expect(json.Valid(next.calls[0].Request.Native.Body)).To(BeTrue())
		})

		It("scans a caller's native body string by string: the history it sends again is not scanned again", func() {
			body := func(q string) []byte {
				return []byte(`{"model":"m","messages":[{"role":"user","content":"key \"` + awsKey + `\"\n"},{"role":"user","content":"` + q + `"}]}`)
			}
			for i, q := range []string{"first question", "second question"} {
				_, err := g.Stream(context.Background(), ports.ModelCall{CallID: fmt.Sprint(i), Request: llm.Request{Native: &llm.Native{Kind: "x", Body: body(q)}}})
				Expect(err).NotTo(HaveOccurred())
				sentBody := next.calls[i].Request.Native.Body
				Expect(string(sentBody)).NotTo(ContainSubstring(awsKey))
				Expect(json.Valid(sentBody)).To(BeTrue())
				Expect(string(sentBody)).To(ContainSubstring(q))
			}
			Expect(reports).To(Equal([]string{"0 redact [aws-access-token]"}), "the second request found the key in the cache")
		})

		It("is safe for concurrent calls", func() {
			var wg sync.WaitGroup
			for i := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer GinkgoRecover()
					r := g.Redact(conversation(fmt.Sprintf("n=%d %s", i, privateKey)))
					Expect(sent(ports.ModelCall{Request: r.Request})).NotTo(ContainSubstring(awsKey))
				}()
			}
			wg.Wait()
		})
	})

	Context("in block mode", func() {
		It("refuses the call before the provider, naming the kind of secret and never its value", func() {
			g := secretguard.New(next, newScanner(), secretscan.Block, report)
			_, err := g.Stream(context.Background(), ports.ModelCall{CallID: "r:0", Request: conversation("clean")})
			var blocked *secretscan.BlockedError
			Expect(errors.As(err, &blocked)).To(BeTrue())
			Expect(blocked.Rules).To(Equal([]string{"aws-access-token"}))
			Expect(err.Error()).To(ContainSubstring("aws-access-token"))
			Expect(err.Error()).NotTo(ContainSubstring(awsKey))
			Expect(next.calls).To(BeEmpty())
			Expect(reports).To(Equal([]string{"r:0 block [aws-access-token]"}))
		})
	})

	Context("off", func() {
		It("sends the request untouched", func() {
			g := secretguard.New(next, newScanner(), secretscan.Off, report)
			_, err := g.Stream(context.Background(), ports.ModelCall{Request: conversation("clean")})
			Expect(err).NotTo(HaveOccurred())
			Expect(sent(next.calls[0])).To(ContainSubstring(awsKey))
			Expect(reports).To(BeEmpty())
		})
	})
})

var _ = Describe("Scanner", func() {
	It("uses gitleaks' whole default rule set", func() {
		Expect(newScanner().Rules()).To(BeNumerically(">", 150))
	})
	It("finds common credentials", func() {
		s := newScanner()
		for text, rule := range map[string]string{
			"key " + awsKey: "aws-access-token",
			privateKey:      "private-key",
			"token: ghp_" + strings.Repeat("aB3dE5fG7h", 3) + "iJ1kL2": "github-pat",
		} {
			_, found, _ := s.Redact(text)
			Expect(secretscan.Rules(found)).To(ContainElement(rule), text)
		}
	})
})
