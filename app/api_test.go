package app_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.uber.org/zap"

	"keygate/adapters/auth"
	"keygate/adapters/provider/providertest"
	"keygate/adapters/relstore"
	"keygate/adapters/tracing"
	"keygate/app"
	"keygate/app/config"
	appcontrol "keygate/app/control"
	"keygate/domain/access"
	"keygate/domain/callrecord"
	"keygate/domain/identity"
	"keygate/domain/llm"
	"keygate/domain/team"
	"keygate/ports"
)

// apiStack is Keygate's compatible API on the real composition: the
// provider chain of Agent turns, the store's call records, three models
// (one per protocol) on one fake provider.
type apiStack struct {
	url    string
	store  *relstore.Store
	ids    map[string]string // model ids by display name
	mint   func(ctx context.Context, user string) (id, text string)
	revoke func(ctx context.Context, user, id string)
}

type apiStackOptions struct {
	company bool   // gateway tokens required
	budgets string // a budget policy, or none
}

func newAPIStack(ctx context.Context, o apiStackOptions, providerURL string) apiStack {
	dir := app.DataDir(GinkgoT().TempDir())
	log := zap.NewNop()
	cfg := config.Config{DataDir: string(dir)}
	if o.budgets != "" {
		file := filepath.Join(GinkgoT().TempDir(), "budgets.json")
		Expect(os.WriteFile(file, []byte(o.budgets), 0o600)).To(Succeed())
		cfg.BudgetsFile = file
	}
	authCfg := auth.Config{Mode: auth.ModeLocal}
	if o.company {
		authCfg = auth.Config{Mode: auth.ModeHeader, UserHeader: "X-Forwarded-User",
			TrustedProxies: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
		u, err := url.Parse(providerURL)
		Expect(err).NotTo(HaveOccurred())
		cfg.EgressAllow = []string{u.Host}
	}
	store, closeStore, err := app.OpenStore(ctx, cfg, log, dir)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(closeStore)
	box, err := app.OpenSecretBox(cfg, dir)
	Expect(err).NotTo(HaveOccurred())
	auditor := app.NewAuditor(store)
	settings, err := app.LoadSettings(ctx, store, auditor)
	Expect(err).NotTo(HaveOccurred())
	gate, err := auth.New(ctx, authCfg, box, log)
	Expect(err).NotTo(HaveOccurred())
	policy, err := app.NewEgress(ctx, cfg, gate, log)
	Expect(err).NotTo(HaveOccurred())
	tm := app.NewTeams(gate, store, auditor)
	budgets, stopBudgets, err := app.NewBudgets(ctx, cfg, store, settings, auditor, box, policy, tm, log)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(stopBudgets)
	catalog := app.NewCatalog(store, box)
	mp := app.NewModelProvider(app.ModelProviderOptions{Logger: log, Store: store, Settings: settings, Metrics: app.NewMetrics(),
		Tracing: tracing.NewWithProcessor(tracetest.NewSpanRecorder(), "test"), Budgets: budgets, Egress: policy, Catalog: catalog, Auditor: auditor,
		Teams: tm})
	deps := app.ControlDeps{Store: store, Box: box, Auditor: auditor, Egress: policy}
	models := app.NewModels(deps)
	ids := map[string]string{}
	for _, m := range []appcontrol.ModelSettings{
		{DisplayName: "Fake GPT", ProviderKind: llm.ProviderOpenAIChat, BaseURL: providerURL, ModelID: "fake-gpt", SupportsTools: true},
		{DisplayName: "Fake Claude", ProviderKind: llm.ProviderAnthropic, BaseURL: providerURL, ModelID: "fake-claude", SupportsTools: true},
		{DisplayName: "Fake Codex", ProviderKind: llm.ProviderOpenAIResponses, BaseURL: providerURL, ModelID: "fake-codex", SupportsTools: true},
		{DisplayName: "Fake FIM", ProviderKind: llm.ProviderMistralFIM, BaseURL: providerURL, ModelID: "fake-fim"},
	} {
		created, err := models.Create(ctx, m, "sk-test", true)
		Expect(err).NotTo(HaveOccurred())
		ids[m.DisplayName] = created.Config.ID
	}
	// An alias over two protocols: Anthropic first, then Chat.
	_, err = app.NewAliases(deps).Create(ctx, appcontrol.AliasSettings{DisplayName: "Any Model",
		Targets: []ports.AliasTarget{{ModelID: ids["Fake Claude"]}, {ModelID: ids["Fake GPT"]}}}, true)
	Expect(err).NotTo(HaveOccurred())
	tokens := app.NewTokens(cfg, store, auditor)
	gw := app.NewGateway(mp, catalog, app.NewPublishing(store), tm, log)
	mux := http.NewServeMux()
	for p, h := range app.NewAPIRoutes(gate, tokens, gw, log) {
		mux.Handle(p, h)
	}
	ts := httptest.NewServer(mux)
	DeferCleanup(ts.Close)
	DeferCleanup(ts.CloseClientConnections)
	principal := func(user string) access.Principal {
		return access.Principal{Identity: identity.Identity{UserID: user, Name: user}, Role: access.Member}
	}
	return apiStack{url: ts.URL, store: store, ids: ids,
		mint: func(ctx context.Context, user string) (string, string) {
			tok, text, err := tokens.Create(ctx, principal(user), "agent", 0)
			Expect(err).NotTo(HaveOccurred())
			return tok.ID, text
		},
		revoke: func(ctx context.Context, user, id string) {
			_, err := tokens.Revoke(ctx, principal(user), id)
			Expect(err).NotTo(HaveOccurred())
		}}
}

// post sends body to path with headers ("Name: value").
func post(ctx context.Context, base, path, body string, headers ...string) (*http.Response, []byte) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		if k == "Host" {
			req.Host = v
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp, b
}

// sseEvent is one server-sent event of an answer.
type sseEvent struct {
	Name string
	Data map[string]any
	Raw  string
}

func sseEvents(b []byte) []sseEvent {
	var out []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.Raw = strings.TrimPrefix(line, "data: ")
			_ = json.Unmarshal([]byte(cur.Raw), &cur.Data)
		case line == "":
			if cur.Raw != "" {
				out = append(out, cur)
			}
			cur = sseEvent{}
		}
	}
	return out
}

func named(evs []sseEvent, name string) []sseEvent {
	var out []sseEvent
	for _, e := range evs {
		if e.Name == name || (e.Name == "" && e.Data["type"] == name) {
			out = append(out, e)
		}
	}
	return out
}

func jsonOf(b []byte) map[string]any {
	var v map[string]any
	Expect(json.Unmarshal(b, &v)).To(Succeed(), string(b))
	return v
}

// at walks a decoded JSON value by keys and indexes.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func apiCalls(ctx context.Context, s apiStack) []callrecord.Record {
	recs, err := s.store.CallRecords().CallRecords(ctx, ports.CallQuery{Kind: callrecord.KindAPI})
	Expect(err).NotTo(HaveOccurred())
	return recs
}

// claudeCodeBody is a request shaped as Claude Code sends it: system
// blocks, a system-role entry among the messages, cache breakpoints,
// thinking, metadata and fields Keygate does not model.
const claudeCodeBody = `{"model":%q,"max_tokens":128000,"stream":true,
"system":[{"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral"}}],
"messages":[{"role":"user","content":[{"type":"text","text":"say hi","cache_control":{"type":"ephemeral"}}]},
 {"role":"system","content":"Environment: linux"}],
"tools":[{"name":"Read","description":"Read a file","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}}}}],
"metadata":{"user_id":"u1"},"thinking":{"type":"adaptive","display":"omitted"},
"context_management":{"edits":[]},"output_config":{"effort":"high"}}`

func sprintf(format string, args ...any) string {
	b, _ := json.Marshal(args[0])
	return strings.Replace(format, "%q", string(b), 1)
}

var _ = Describe("The compatible API (coding agents through Keygate)", func() {
	var provider *providertest.Server
	BeforeEach(func() {
		provider = providertest.NewServer()
		DeferCleanup(provider.Close)
		DeferCleanup(provider.Release)
	})

	Describe("Anthropic Messages in", func() {
		It("relays Claude Code's request to an Anthropic model keeping every field, and streams the answer with the signature and the target's usage", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{}, provider.URL)
			provider.Enqueue(providertest.Stream(providertest.AnthropicSSE(providertest.Turn{ID: "msg_up",
				Thinking: []string{"hmm"}, Signature: "sig-1", Text: providertest.Words("Hi there."),
				Usage: providertest.Usage{Input: 12, CacheRead: 100, CacheWrite: 5, Output: 7}})))
			resp, body := post(ctx, s.url, "/v1/messages?beta=true", sprintf(claudeCodeBody, "Fake Claude"),
				"x-api-key: anything", "anthropic-beta: context-management-2025-06-27",
				"User-Agent: claude-cli/2.1.328 (external, sdk-cli)", "X-Claude-Code-Session-Id: sess-1")
			Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
			Expect(resp.Header.Get("Content-Type")).To(HavePrefix("text/event-stream"))

			By("sending the caller's body with only the model replaced")
			reqs := provider.Requests()
			Expect(reqs).To(HaveLen(1))
			Expect(reqs[0].Path).To(Equal("/v1/messages"))
			up := jsonOf(reqs[0].Body)
			Expect(up["model"]).To(Equal("fake-claude"))
			Expect(up["stream"]).To(BeTrue())
			Expect(up).To(HaveKey("context_management"))
			Expect(up).To(HaveKeyWithValue("metadata", map[string]any{"user_id": "u1"}))
			Expect(at(up, "system", 0, "cache_control", "type")).To(Equal("ephemeral"))
			Expect(at(up, "messages", 1, "role")).To(Equal("system"))
			Expect(reqs[0].Header.Get("anthropic-beta")).To(ContainSubstring("context-management-2025-06-27"))

			By("answering in Messages events")
			evs := sseEvents(body)
			Expect(evs[0].Name).To(Equal("message_start"))
			var text, signature string
			for _, e := range named(evs, "content_block_delta") {
				switch at(e.Data, "delta", "type") {
				case "text_delta":
					text += at(e.Data, "delta", "text").(string)
				case "signature_delta":
					signature = at(e.Data, "delta", "signature").(string)
				}
			}
			Expect(text).To(Equal("Hi there."))
			Expect(signature).To(Equal("sig-1"))
			delta := named(evs, "message_delta")
			Expect(delta).To(HaveLen(1))
			Expect(at(delta[0].Data, "delta", "stop_reason")).To(Equal("end_turn"))
			Expect(at(delta[0].Data, "usage")).To(Equal(map[string]any{"input_tokens": 12.0, "cache_read_input_tokens": 100.0,
				"cache_creation_input_tokens": 5.0, "output_tokens": 7.0}))
			Expect(evs[len(evs)-1].Name).To(Equal("message_stop"))

			By("recording the call as kind api from claude-code")
			recs := apiCalls(ctx, s)
			Expect(recs).To(HaveLen(1))
			Expect(recs[0].Kind).To(Equal(callrecord.KindAPI))
			Expect(recs[0].Client).To(Equal("claude-code"))
			Expect(recs[0].UserID).To(Equal(identity.LocalUserID))
			Expect(recs[0].ConversationID).NotTo(BeEmpty(), "the session keys the call")
		}, SpecTimeout(60e9))

		It("translates to an OpenAI Chat model: system, tool_use and tool_result in, a tool call and usage back", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{}, provider.URL)
			provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "c1",
				Calls: []providertest.Call{{ID: "call_2", Name: "Read", Arguments: []string{`{"file_path":`, `"b.go"}`}}},
				Usage: providertest.Usage{Input: 30, CacheRead: 10, Output: 4}})))
			resp, body := post(ctx, s.url, "/v1/messages", `{"model":"Fake GPT","max_tokens":1000,"stream":true,
				"system":"Be brief.",
				"messages":[{"role":"user","content":"read a.go"},
				 {"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"a.go"}}]},
				 {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"package a"},{"type":"text","text":"now b.go"}]}],
				"tools":[{"name":"Read","input_schema":{"type":"object"}},{"type":"web_search_20250305","name":"web_search"}]}`,
				"x-api-key: anything")
			Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))

			By("writing the history in Chat's vocabulary")
			up := jsonOf(provider.Requests()[0].Body)
			Expect(up["model"]).To(Equal("fake-gpt"))
			msgs := up["messages"].([]any)
			Expect(at(msgs, 0)).To(Equal(map[string]any{"role": "system", "content": "Be brief."}))
			Expect(at(msgs, 2, "tool_calls", 0, "id")).To(Equal("toolu_1"))
			Expect(at(msgs, 2, "tool_calls", 0, "function", "arguments")).To(MatchJSON(`{"file_path":"a.go"}`))
			Expect(at(msgs, 3, "role")).To(Equal("tool"))
			Expect(at(msgs, 3, "tool_call_id")).To(Equal("toolu_1"))
			Expect(at(msgs, 3, "content")).To(Equal("package a"))
			Expect(at(msgs, 4, "role")).To(Equal("user"))
			Expect(up["tools"]).To(HaveLen(1), "the server tool is left out")
			Expect(string(provider.Requests()[0].Body)).NotTo(ContainSubstring(`"signature"`), "Anthropic's signed thinking reaches no other protocol")

			By("answering with a tool_use block and Messages usage")
			evs := sseEvents(body)
			starts := named(evs, "content_block_start")
			Expect(starts).To(HaveLen(1))
			Expect(at(starts[0].Data, "content_block")).To(HaveKeyWithValue("name", "Read"))
			Expect(at(starts[0].Data, "content_block")).To(HaveKeyWithValue("id", "call_2"))
			Expect(at(named(evs, "content_block_delta")[0].Data, "delta", "partial_json")).To(MatchJSON(`{"file_path":"b.go"}`))
			delta := named(evs, "message_delta")[0]
			Expect(at(delta.Data, "delta", "stop_reason")).To(Equal("tool_use"))
			Expect(at(delta.Data, "usage", "input_tokens")).To(Equal(30.0), "input without the cached tokens")
			Expect(at(delta.Data, "usage", "cache_read_input_tokens")).To(Equal(10.0))
			Expect(at(delta.Data, "usage", "output_tokens")).To(Equal(4.0))
		}, SpecTimeout(60e9))

		It("answers a non-streaming request with one message", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{}, provider.URL)
			provider.Enqueue(providertest.Stream(providertest.ResponsesSSE(providertest.Turn{ID: "r1", Text: []string{"Hello"},
				Usage: providertest.Usage{Input: 3, Output: 1}})))
			resp, body := post(ctx, s.url, "/v1/messages", `{"model":"Fake Codex","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
			m := jsonOf(body)
			Expect(m["type"]).To(Equal("message"))
			Expect(m["model"]).To(Equal("Fake Codex"))
			Expect(at(m, "content", 0)).To(Equal(map[string]any{"type": "text", "text": "Hello"}))
			Expect(at(m, "usage", "input_tokens")).To(Equal(3.0))
			Expect(provider.Requests()[0].Path).To(Equal("/v1/responses"))
		}, SpecTimeout(60e9))

		It("estimates a request's tokens", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{}, provider.URL)
			resp, body := post(ctx, s.url, "/v1/messages/count_tokens", `{"model":"Fake Claude","messages":[{"role":"user","content":"`+strings.Repeat("word ", 400)+`"}]}`)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
			Expect(jsonOf(body)["input_tokens"]).To(BeNumerically(">", 100))
			Expect(provider.Requests()).To(BeEmpty())
		}, SpecTimeout(60e9))
	})

	Describe("OpenAI Chat in", func() {
		It("translates to an Anthropic model: a whole completion with tool calls and Chat usage", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{}, provider.URL)
			provider.Enqueue(providertest.Stream(providertest.AnthropicSSE(providertest.Turn{ID: "m1", Text: []string{"Reading."},
				Calls: []providertest.Call{{ID: "toolu_9", Name: "read", Arguments: []string{`{"path":"x"}`}}},
				Usage: providertest.Usage{Input: 20, CacheRead: 80, Output: 9}})))
			resp, body := post(ctx, s.url, "/v1/chat/completions", `{"model":"fake-claude-id-unused","messages":[]}`,
				"Authorization: Bearer x")
			Expect(resp.StatusCode).To(Equal(http.StatusNotFound), "a model by neither id nor name")
			Expect(at(jsonOf(body), "error", "code")).To(Equal("model_not_found"))
			Expect(at(jsonOf(body), "error", "message")).To(ContainSubstring("Fake Claude"), "the refusal names the available models")
			Expect(at(jsonOf(body), "error", "message")).NotTo(ContainSubstring("Fake FIM"), "a fill-in-the-middle model is not offered")

			resp, body = post(ctx, s.url, "/v1/chat/completions", `{"model":"fake claude","max_tokens":500,
				"messages":[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]},
				 {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a\"}"}}]},
				 {"role":"tool","tool_call_id":"call_1","content":"A"}],
				"tools":[{"type":"function","function":{"name":"read","parameters":{"type":"object"}}}]}`, "Authorization: Bearer x")
			Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))

			By("writing Messages to the Anthropic model")
			up := jsonOf(provider.Requests()[0].Body)
			Expect(at(up, "system", 0, "text")).To(Equal("Be brief."))
			Expect(at(up, "messages", 0, "content", 1, "type")).To(Equal("image"))
			Expect(at(up, "messages", 1, "content", 0)).To(HaveKeyWithValue("type", "tool_use"))
			Expect(at(up, "messages", 1, "content", 0)).To(HaveKeyWithValue("id", "call_1"))
			Expect(at(up, "messages", 2, "content", 0)).To(HaveKeyWithValue("tool_use_id", "call_1"))
			Expect(at(up, "max_tokens")).To(Equal(500.0))

			By("answering a chat.completion")
			c := jsonOf(body)
			Expect(c["object"]).To(Equal("chat.completion"))
			Expect(at(c, "choices", 0, "message", "content")).To(Equal("Reading."))
			Expect(at(c, "choices", 0, "message", "tool_calls", 0, "id")).To(Equal("toolu_9"))
			Expect(at(c, "choices", 0, "message", "tool_calls", 0, "function", "arguments")).To(MatchJSON(`{"path":"x"}`))
			Expect(at(c, "choices", 0, "finish_reason")).To(Equal("tool_calls"))
			Expect(at(c, "usage", "prompt_tokens")).To(Equal(100.0), "prompt tokens include the cached ones")
			Expect(at(c, "usage", "prompt_tokens_details", "cached_tokens")).To(Equal(80.0))
			Expect(at(c, "usage", "completion_tokens")).To(Equal(9.0))
		}, SpecTimeout(60e9))

		It("relays a request to a Chat model keeping the fields Keygate does not model, and answers a whole completion", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{}, provider.URL)
			provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "c1", Text: []string{"Hi"},
				Usage: providertest.Usage{Input: 4, Output: 1}})))
			resp, body := post(ctx, s.url, "/v1/chat/completions", `{"model":"Fake GPT","messages":[{"role":"user","content":"hi"}],
				"user":"u-7","logit_bias":{"50256":-100},"temperature":0.3}`)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
			up := jsonOf(provider.Requests()[0].Body)
			Expect(up["model"]).To(Equal("fake-gpt"))
			Expect(up["user"]).To(Equal("u-7"))
			Expect(up["logit_bias"]).To(Equal(map[string]any{"50256": -100.0}))
			Expect(up["temperature"]).To(Equal(0.3))
			Expect(up["stream"]).To(BeTrue())
			Expect(up["stream_options"]).To(Equal(map[string]any{"include_usage": true}), "so that the usage is known")
			c := jsonOf(body)
			Expect(at(c, "choices", 0, "message", "content")).To(Equal("Hi"))
			Expect(at(c, "usage", "prompt_tokens")).To(Equal(4.0))
		}, SpecTimeout(60e9))

		It("streams chunks from a Responses model, with a usage chunk when asked", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{}, provider.URL)
			provider.Enqueue(providertest.Stream(providertest.ResponsesSSE(providertest.Turn{ID: "r1", Text: providertest.Words("One two."),
				Usage: providertest.Usage{Input: 5, Output: 2}})))
			resp, body := post(ctx, s.url, "/v1/chat/completions", `{"model":"Fake Codex","stream":true,"stream_options":{"include_usage":true},
				"messages":[{"role":"user","content":"count"}]}`, "User-Agent: opencode/0.3")
			Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
			evs := sseEvents(body)
			Expect(evs[len(evs)-1].Raw).To(Equal("[DONE]"))
			var text string
			for _, e := range evs {
				if c, ok := at(e.Data, "choices", 0, "delta", "content").(string); ok {
					text += c
				}
			}
			Expect(text).To(Equal("One two."))
			usage := evs[len(evs)-2]
			Expect(at(usage.Data, "usage", "prompt_tokens")).To(Equal(5.0))
			Expect(at(usage.Data, "usage", "completion_tokens")).To(Equal(2.0))
			Expect(apiCalls(ctx, s)[0].Client).To(Equal("opencode"))
		}, SpecTimeout(60e9))
	})

	Describe("OpenAI Responses in", func() {
		codexBody := `{"model":"Fake Codex","stream":true,"store":false,"include":["reasoning.encrypted_content"],
			"prompt_cache_key":"thread-1","parallel_tool_calls":true,"tool_choice":"auto","reasoning":{"summary":"auto"},
			"instructions":"You are Codex.",
			"input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"sandbox: read-only"}]},
			 {"type":"message","role":"user","content":[{"type":"input_text","text":"list files"}]},
			 {"type":"reasoning","id":"rs_old","summary":[{"type":"summary_text","text":"think"}],"encrypted_content":"ENC-OLD"},
			 {"type":"function_call","call_id":"call_1","name":"exec_command","arguments":"{\"cmd\":\"ls\"}"},
			 {"type":"function_call_output","call_id":"call_1","output":"a.go"}],
			"tools":[{"type":"function","name":"exec_command","parameters":{"type":"object","properties":{"cmd":{"type":"string"}}}},
			 {"type":"namespace","name":"multi_agent_v1","tools":[]},{"type":"web_search"}]}`

		It("relays Codex's request to a Responses model without the hosted tool, and gives back reasoning with its encrypted content before the call", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{}, provider.URL)
			provider.Enqueue(providertest.Stream(providertest.ResponsesSSE(providertest.Turn{ID: "resp_up",
				Thinking: []string{"plan"}, Signature: "ENC-NEW",
				Calls: []providertest.Call{{ID: "call_2", Name: "exec_command", Arguments: []string{`{"cmd":"cat a.go"}`}}},
				Usage: providertest.Usage{Input: 50, CacheRead: 950, Output: 20, Reasoning: 8}})))
			resp, body := post(ctx, s.url, "/v1/responses", codexBody, "Authorization: Bearer x",
				"User-Agent: codex_exec/0.169.0 (linux)", `x-codex-turn-metadata: {"thread_id":"th-9","turn_id":"t1"}`)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))

			By("keeping store, include and the replayed reasoning, leaving out web_search")
			up := jsonOf(provider.Requests()[0].Body)
			Expect(up["model"]).To(Equal("fake-codex"))
			Expect(up["store"]).To(BeFalse())
			Expect(up["include"]).To(Equal([]any{"reasoning.encrypted_content"}))
			Expect(at(up, "input", 2, "encrypted_content")).To(Equal("ENC-OLD"))
			Expect(up["tools"]).To(HaveLen(2))
			Expect(string(provider.Requests()[0].Body)).NotTo(ContainSubstring("web_search"))

			By("ordering the done items: reasoning (with its encrypted content), then the call")
			evs := sseEvents(body)
			done := named(evs, "response.output_item.done")
			Expect(done).To(HaveLen(2))
			Expect(at(done[0].Data, "item", "type")).To(Equal("reasoning"))
			Expect(at(done[0].Data, "item", "encrypted_content")).To(Equal("ENC-NEW"))
			Expect(at(done[1].Data, "item", "type")).To(Equal("function_call"))
			Expect(at(done[1].Data, "item", "call_id")).To(Equal("call_2"))
			Expect(at(done[1].Data, "item", "arguments")).To(MatchJSON(`{"cmd":"cat a.go"}`))
			completed := named(evs, "response.completed")
			Expect(completed).To(HaveLen(1))
			Expect(at(completed[0].Data, "response", "usage", "input_tokens")).To(Equal(1000.0))
			Expect(at(completed[0].Data, "response", "usage", "input_tokens_details", "cached_tokens")).To(Equal(950.0))
			Expect(at(completed[0].Data, "response", "usage", "output_tokens_details", "reasoning_tokens")).To(Equal(8.0))
			Expect(apiCalls(ctx, s)[0].Client).To(Equal("codex"))
		}, SpecTimeout(60e9))

		It("translates Codex's request to a Chat model: developer text and tool output carried, encrypted reasoning not sent", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{}, provider.URL)
			provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "c1", Text: []string{"Done."},
				Usage: providertest.Usage{Input: 7, Output: 2}})))
			resp, body := post(ctx, s.url, "/v1/responses", strings.Replace(codexBody, `"Fake Codex"`, `"Fake GPT"`, 1))
			Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
			raw := string(provider.Requests()[0].Body)
			Expect(raw).NotTo(ContainSubstring("ENC-OLD"))
			up := jsonOf(provider.Requests()[0].Body)
			msgs := up["messages"].([]any)
			Expect(at(msgs, 0, "content")).To(Equal("You are Codex."))
			Expect(raw).To(ContainSubstring("sandbox: read-only"))
			Expect(at(msgs, 3, "tool_calls", 0, "id")).To(Equal("call_1"))
			Expect(at(msgs, 4)).To(HaveKeyWithValue("role", "tool"))
			Expect(at(msgs, 4)).To(HaveKeyWithValue("content", "a.go"))
			Expect(up["tools"]).To(HaveLen(1), "only the function tool reaches Chat")
			evs := sseEvents(body)
			done := named(evs, "response.output_item.done")
			Expect(at(done[0].Data, "item", "content", 0, "text")).To(Equal("Done."))
		}, SpecTimeout(60e9))
	})

	Describe("OpenAI Responses in, Anthropic model", func() {
		It("translates input items to Messages and answers with Responses events", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{}, provider.URL)
			provider.Enqueue(providertest.Stream(providertest.AnthropicSSE(providertest.Turn{ID: "m1", Text: providertest.Words("All good."),
				Usage: providertest.Usage{Input: 10, CacheRead: 90, Output: 3}})))
			resp, body := post(ctx, s.url, "/v1/responses", `{"model":"Fake Claude","instructions":"Be terse.","stream":true,
				"input":[{"role":"user","content":"run ls"},
				 {"type":"function_call","call_id":"call_1","name":"exec_command","arguments":"{\"cmd\":\"ls\"}"},
				 {"type":"function_call_output","call_id":"call_1","output":"a.go"}],
				"tools":[{"type":"function","name":"exec_command","parameters":{"type":"object"}}]}`)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
			up := jsonOf(provider.Requests()[0].Body)
			Expect(at(up, "system", 0, "text")).To(Equal("Be terse."))
			Expect(at(up, "messages", 1, "content", 0)).To(HaveKeyWithValue("type", "tool_use"))
			Expect(at(up, "messages", 1, "content", 0)).To(HaveKeyWithValue("input", map[string]any{"cmd": "ls"}))
			Expect(at(up, "messages", 2, "content", 0)).To(HaveKeyWithValue("tool_use_id", "call_1"))
			Expect(at(up, "tools", 0, "name")).To(Equal("exec_command"))
			evs := sseEvents(body)
			var text string
			for _, e := range named(evs, "response.output_text.delta") {
				text += e.Data["delta"].(string)
			}
			Expect(text).To(Equal("All good."))
			completed := named(evs, "response.completed")[0]
			Expect(at(completed.Data, "response", "output", 0, "content", 0, "text")).To(Equal("All good."))
			Expect(at(completed.Data, "response", "usage", "input_tokens")).To(Equal(100.0))
		}, SpecTimeout(60e9))
	})

	Describe("on an alias", func() {
		It("fails over before the first token from an Anthropic target to a Chat one, relaying first and translating after", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{}, provider.URL)
			provider.Enqueue(providertest.Status(http.StatusInternalServerError, `{"type":"error","error":{"type":"api_error","message":"down"}}`),
				providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "c1", Text: []string{"From GPT"},
					Usage: providertest.Usage{Input: 6, Output: 2}})))
			resp, body := post(ctx, s.url, "/v1/messages", sprintf(claudeCodeBody, "Any Model"), "X-Claude-Code-Session-Id: s-9")
			Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
			reqs := provider.Requests()
			Expect(reqs).To(HaveLen(2))
			Expect(reqs[0].Path).To(Equal("/v1/messages"))
			Expect(jsonOf(reqs[0].Body)).To(HaveKey("context_management"), "the Anthropic target got the caller's body")
			Expect(reqs[1].Path).To(Equal("/v1/chat/completions"))
			Expect(at(jsonOf(reqs[1].Body), "messages", 0, "content")).To(Equal("You are Claude Code."), "the Chat target got the translation")
			var text string
			for _, e := range named(sseEvents(body), "content_block_delta") {
				if t, ok := at(e.Data, "delta", "text").(string); ok {
					text += t
				}
			}
			Expect(text).To(Equal("From GPT"))
			recs := apiCalls(ctx, s)
			Expect(recs).To(HaveLen(2), "one record per attempt")
			for _, r := range recs {
				Expect(r.Client).To(Equal("Go-http-client"), "the user agent's product token")
				Expect(r.Route.ID).NotTo(BeEmpty())
			}
		}, SpecTimeout(60e9))
	})

	Describe("provider failures", func() {
		It("answers a provider's refusal before any output with its status in the client's shape", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{}, provider.URL)
			provider.Enqueue(providertest.Status(http.StatusBadRequest, `{"error":{"message":"prompt is too long","type":"invalid_request_error","code":"context_length_exceeded"}}`))
			resp, body := post(ctx, s.url, "/v1/messages", `{"model":"Fake GPT","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
			Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), string(body))
			Expect(jsonOf(body)).To(HaveKeyWithValue("type", "error"))
			Expect(at(jsonOf(body), "error", "type")).To(Equal("invalid_request_error"))
		}, SpecTimeout(60e9))

		It("ends a stream the provider broke off with the protocol's in-stream error", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{}, provider.URL)
			steps := providertest.Events(providertest.ChatSSE(providertest.Turn{ID: "c1", Text: providertest.Words("Half of it")}))
			broken := providertest.Reply{Steps: append(steps[:2:2], providertest.Step{Disconnect: true})}
			provider.Enqueue(broken)
			resp, body := post(ctx, s.url, "/v1/messages", `{"model":"Fake GPT","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			evs := sseEvents(body)
			Expect(evs[len(evs)-1].Name).To(Equal("error"))
			Expect(named(evs, "message_stop")).To(BeEmpty())

			provider.Enqueue(providertest.Reply{Steps: append(steps[:2:2], providertest.Step{Disconnect: true})})
			resp, body = post(ctx, s.url, "/v1/responses", `{"model":"Fake GPT","stream":true,"input":"hi"}`)
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
			evs = sseEvents(body)
			Expect(evs[len(evs)-1].Name).To(Equal("response.failed"))
			Expect(named(evs, "response.completed")).To(BeEmpty())
		}, SpecTimeout(60e9))
	})

	Describe("GET /v1/models", func() {
		It("lists the enabled models that can hold a conversation, by id and name, in each client's shape", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{}, provider.URL)
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/v1/models", nil)
			resp, err := http.DefaultClient.Do(req)
			Expect(err).NotTo(HaveOccurred())
			b, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			list := jsonOf(b)
			Expect(list["object"]).To(Equal("list"))
			var names []any
			for _, m := range list["data"].([]any) {
				names = append(names, at(m, "name"))
			}
			Expect(names).To(ConsistOf("Fake GPT", "Fake Claude", "Fake Codex", "Any Model"))

			req.Header.Set("anthropic-version", "2023-06-01")
			resp, err = http.DefaultClient.Do(req)
			Expect(err).NotTo(HaveOccurred())
			b, _ = io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			Expect(at(jsonOf(b), "data", 0, "type")).To(Equal("model"))
			Expect(at(jsonOf(b), "data", 0, "display_name")).NotTo(BeEmpty())
		}, SpecTimeout(60e9))
	})

	Describe("on a laptop", func() {
		It("serves only this machine: a request naming another host is refused", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{}, provider.URL)
			resp, body := post(ctx, s.url, "/v1/messages", `{"model":"Fake Claude","max_tokens":5,"messages":[]}`, "Host: keygate.attacker.example")
			Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
			Expect(at(jsonOf(body), "error", "type")).To(Equal("permission_error"))
			resp, _ = post(ctx, s.url, "/v1/chat/completions", `{"model":"Fake GPT","messages":[]}`, "X-Forwarded-For: 10.0.0.9")
			Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
			Expect(provider.Requests()).To(BeEmpty())
		}, SpecTimeout(60e9))
	})

	Describe("in company mode", func() {
		It("refuses a missing, invalid or revoked gateway token in the client's own error shape, and records a valid one's calls as its owner's", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{company: true}, provider.URL)
			msg := `{"model":"Fake Claude","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`

			resp, body := post(ctx, s.url, "/v1/messages", msg)
			Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
			Expect(jsonOf(body)).To(HaveKeyWithValue("type", "error"))
			Expect(at(jsonOf(body), "error", "type")).To(Equal("authentication_error"))

			resp, body = post(ctx, s.url, "/v1/chat/completions", `{"model":"Fake GPT","messages":[]}`, "Authorization: Bearer kg_not_a_token")
			Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
			Expect(at(jsonOf(body), "error", "code")).To(Equal("invalid_api_key"))

			id, text := s.mint(ctx, "ada")
			provider.Enqueue(providertest.Stream(providertest.AnthropicSSE(providertest.Turn{ID: "m1", Text: []string{"ok"}})))
			resp, body = post(ctx, s.url, "/v1/messages", msg, "x-api-key: "+text)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
			recs := apiCalls(ctx, s)
			Expect(recs).To(HaveLen(1))
			Expect(recs[0].UserID).To(Equal("ada"))

			s.revoke(ctx, "ada", id)
			resp, body = post(ctx, s.url, "/v1/responses", `{"model":"Fake Codex","input":"hi"}`, "Authorization: Bearer "+text)
			Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
			Expect(at(jsonOf(body), "error", "type")).To(Equal("invalid_request_error"))
			Expect(provider.Requests()).To(HaveLen(1), "no refused call reached the provider")
		}, SpecTimeout(60e9))

		It("keys a session's calls to one conversation per caller, so two users' sessions of one id never share a target", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{company: true}, provider.URL)
			_, ada := s.mint(ctx, "ada")
			_, bob := s.mint(ctx, "bob")
			msg := `{"model":"Fake Claude","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
			for _, tok := range []string{ada, ada, bob} {
				provider.Enqueue(providertest.Stream(providertest.AnthropicSSE(providertest.Turn{ID: "m", Text: []string{"ok"}})))
				resp, body := post(ctx, s.url, "/v1/messages", msg, "x-api-key: "+tok, "X-Claude-Code-Session-Id: same-session")
				Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
			}
			convs := map[string][]string{}
			for _, r := range apiCalls(ctx, s) {
				convs[r.UserID] = append(convs[r.UserID], r.ConversationID)
			}
			Expect(convs["ada"]).To(HaveLen(2))
			Expect(convs["ada"][0]).To(Equal(convs["ada"][1]))
			Expect(convs["bob"]).To(HaveLen(1))
			Expect(convs["bob"][0]).NotTo(Equal(convs["ada"][0]))
		}, SpecTimeout(60e9))

		It("counts the calls against the caller's budget and refuses over it in the client's shape", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{company: true, budgets: `{"default": {"tokensPerDay": 50}}`}, provider.URL)
			_, text := s.mint(ctx, "ada")
			provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "c1", Text: []string{"Hi"},
				Usage: providertest.Usage{Input: 40, Output: 20}})))
			chat := `{"model":"Fake GPT","messages":[{"role":"user","content":"hi"}]}`
			resp, body := post(ctx, s.url, "/v1/chat/completions", chat, "Authorization: Bearer "+text)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))

			resp, body = post(ctx, s.url, "/v1/chat/completions", chat, "Authorization: Bearer "+text)
			Expect(resp.StatusCode).To(Equal(http.StatusTooManyRequests))
			Expect(at(jsonOf(body), "error", "type")).To(Equal("rate_limit_error"))
			Expect(at(jsonOf(body), "error", "message")).To(HavePrefix("Keygate budget reached"))

			resp, body = post(ctx, s.url, "/v1/messages", `{"model":"Fake GPT","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, "x-api-key: "+text)
			Expect(resp.StatusCode).To(Equal(http.StatusTooManyRequests))
			Expect(at(jsonOf(body), "error", "type")).To(Equal("rate_limit_error"))
			Expect(provider.Requests()).To(HaveLen(1))
		}, SpecTimeout(60e9))

		It("lists and runs only the models the caller's teams allow, refusing others 403 in the client's shape before the provider", func(ctx SpecContext) {
			s := newAPIStack(ctx, apiStackOptions{company: true}, provider.URL)
			Expect(s.store.Teams().PutTeam(ctx, team.Team{Name: "web", Restricted: true, Models: []string{s.ids["Fake GPT"]}})).To(Succeed())
			Expect(s.store.Memberships().RecordGroups(ctx, "ada", []string{"staff", "web"}, time.Now())).To(Succeed())
			_, ada := s.mint(ctx, "ada")
			_, bob := s.mint(ctx, "bob")

			models := func(tok string) []any {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/v1/models", nil)
				Expect(err).NotTo(HaveOccurred())
				req.Header.Set("Authorization", "Bearer "+tok)
				resp, err := http.DefaultClient.Do(req)
				Expect(err).NotTo(HaveOccurred())
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				Expect(err).NotTo(HaveOccurred())
				var names []any
				for _, m := range at(jsonOf(b), "data").([]any) {
					names = append(names, at(m, "id"))
				}
				return names
			}
			Expect(models(ada)).To(ConsistOf(s.ids["Fake GPT"]))
			Expect(len(models(bob))).To(BeNumerically(">", 1), "a user in no team sees every model")

			resp, body := post(ctx, s.url, "/v1/messages", `{"model":"Fake Claude","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, "x-api-key: "+ada)
			Expect(resp.StatusCode).To(Equal(http.StatusForbidden), string(body))
			Expect(at(jsonOf(body), "error", "type")).To(Equal("permission_error"))
			Expect(at(jsonOf(body), "error", "message")).To(ContainSubstring("not on your team's model list"))
			resp, body = post(ctx, s.url, "/v1/chat/completions", `{"model":"Any Model","messages":[{"role":"user","content":"hi"}]}`, "Authorization: Bearer "+ada)
			Expect(resp.StatusCode).To(Equal(http.StatusForbidden), string(body))
			Expect(provider.Requests()).To(BeEmpty(), "no refused call reached the provider")

			provider.Enqueue(providertest.Stream(providertest.ChatSSE(providertest.Turn{ID: "c1", Text: []string{"ok"}})))
			resp, body = post(ctx, s.url, "/v1/chat/completions", `{"model":"Fake GPT","messages":[{"role":"user","content":"hi"}]}`, "Authorization: Bearer "+ada)
			Expect(resp.StatusCode).To(Equal(http.StatusOK), string(body))
		}, SpecTimeout(60e9))
	})
})
