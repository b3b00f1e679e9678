package cursor_test

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor"
	"keygate/adapters/cursor/cursortest"
	"keygate/adapters/cursor/frame"
	"keygate/adapters/cursor/picker"
	"keygate/adapters/cursor/unary"
	"keygate/domain/llm"
	agentv1 "keygate/gen/cursor/agent/v1"
	"keygate/gen/cursor/agent/v1/agentv1connect"
	aiserverv1 "keygate/gen/cursor/aiserver/v1"
	"keygate/gen/cursor/aiserver/v1/aiserverv1connect"
	"keygate/ports"
)

// staticCatalog serves fixed models, or fails.
type staticCatalog struct {
	models []unary.Model
	err    error
}

func (c staticCatalog) Models(context.Context, http.Header) ([]unary.Model, error) {
	return c.models, c.err
}

// fakeUpstream answers with a canned response per procedure, or fails.
type fakeUpstream struct {
	mu      sync.Mutex
	answers map[string]proto.Message
	err     error
	calls   []string
}

func (u *fakeUpstream) Call(_ context.Context, procedure string, _ http.Header, _, resp proto.Message) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.calls = append(u.calls, procedure)
	if u.err != nil {
		return u.err
	}
	a, ok := u.answers[procedure]
	if !ok {
		return errors.New("no canned answer")
	}
	proto.Merge(resp, a)
	return nil
}

var _ = Describe("Unary services", func() {
	var (
		ctx      context.Context
		opts     cursor.Options
		upstream *fakeUpstream
		env      *cursortest.Env
		ai       aiserverv1connect.AiServiceClient
		agent    agentv1connect.AgentServiceClient
	)

	BeforeEach(func() {
		ctx = context.Background()
		upstream = &fakeUpstream{answers: map[string]proto.Message{
			aiserverv1connect.AiServiceAvailableModelsProcedure: &aiserverv1.AvailableModelsResponse{
				ModelNames: []string{"cursor-model"},
				Models:     []*aiserverv1.AvailableModelsResponse_AvailableModel{{Name: "cursor-model"}},
			},
			aiserverv1connect.AiServiceGetUsableModelsProcedure: &aiserverv1.GetUsableModelsResponse{
				Models: []*aiserverv1.ModelDetails{{ModelName: proto.String("cursor-model")}},
			},
			agentv1connect.AgentServiceGetUsableModelsProcedure: &agentv1.GetUsableModelsResponse{
				Models: []*agentv1.ModelDetails{{ModelId: "cursor-model"}},
			},
		}}
		opts = cursor.Options{Transport: cursortest.FastTimings(), Unary: unary.Options{
			Catalog: staticCatalog{models: []unary.Model{
				{ID: "kg-1", DisplayName: "Team GPT", Badge: "openai.example", Thinking: true,
					Picker: picker.For(ports.ModelConfig{ModelID: "gpt-5.5", ProviderKind: llm.ProviderOpenAIResponses, BaseURL: "https://api.openai.com/v1"})},
				{ID: "kg-2", DisplayName: "Team Claude", ShortName: "Claude"},
			}},
			Upstream: upstream,
		}}
	})

	JustBeforeEach(func() {
		env = cursortest.Serve(cursortest.NewScriptedRunHandler(cursortest.Reply()), opts)
		DeferCleanup(env.Close)
		ai = aiserverv1connect.NewAiServiceClient(env.HTTP1, env.URL)
		agent = agentv1connect.NewAgentServiceClient(env.HTTP1, env.URL)
	})

	Describe("GetServerConfig", func() {
		fetchBoth := func() []*aiserverv1.GetServerConfigResponse {
			a, err := ai.GetServerConfig(ctx, connect.NewRequest(&aiserverv1.GetServerConfigRequest{}))
			Expect(err).NotTo(HaveOccurred())
			b, err := aiserverv1connect.NewServerConfigServiceClient(env.HTTP1, env.URL).
				GetServerConfig(ctx, connect.NewRequest(&aiserverv1.GetServerConfigRequest{}))
			Expect(err).NotTo(HaveOccurred())
			return []*aiserverv1.GetServerConfigResponse{a.Msg, b.Msg}
		}

		It("keeps HTTP/2 off on both paths when no agent listener is configured", func() {
			for _, cfg := range fetchBoth() {
				Expect(cfg.GetConfigVersion()).To(Equal(unary.DefaultConfigVersion))
				Expect(cfg.GetHttp2Config()).To(Equal(aiserverv1.Http2Config_HTTP2_CONFIG_FORCE_ALL_DISABLED))
				Expect(cfg.GetAgentUrlConfig()).To(BeNil())
				Expect(cfg.GetCliSandboxDefaultEnabled()).To(BeTrue())
			}
		})

		Context("with an HTTP/2 agent listener", func() {
			BeforeEach(func() { opts.Unary.AgentURL = "https://127.0.0.1:47321" })

			It("advertises it as agentn_url on both paths", func() {
				for _, cfg := range fetchBoth() {
					Expect(cfg.GetHttp2Config()).To(Equal(aiserverv1.Http2Config_HTTP2_CONFIG_UNSPECIFIED))
					Expect(cfg.GetAgentUrlConfig().GetAgentnUrl()).To(Equal("https://127.0.0.1:47321"))
				}
			})
		})
	})

	Describe("IsConnected", func() {
		It("always answers 200", func() {
			_, err := aiserverv1connect.NewNetworkServiceClient(env.HTTP1, env.URL).IsConnected(ctx, connect.NewRequest(&aiserverv1.IsConnectedRequest{}))
			Expect(err).NotTo(HaveOccurred())
		})
	})

	Describe("AvailableModels", func() {
		It("appends Keygate's models to Cursor's answer", func() {
			resp, err := ai.AvailableModels(ctx, connect.NewRequest(&aiserverv1.AvailableModelsRequest{}))
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Msg.GetModelNames()).To(Equal([]string{"cursor-model", "kg-1", "kg-2"}))
			Expect(resp.Msg.GetModels()).To(HaveLen(3))
			kg := resp.Msg.GetModels()[1]
			Expect(kg.GetServerModelName()).To(Equal("kg-1"))
			Expect(kg.GetClientDisplayName()).To(Equal("Team GPT"))
			Expect(kg.GetSupportsAgent()).To(BeTrue())
			Expect(kg.GetSupportsThinking()).To(BeTrue())
			Expect(kg.GetModelPickerBadges()[0].GetLabel()).To(Equal("openai.example"))
			Expect(resp.Msg.GetModels()[2].GetInputboxShortModelName()).To(Equal("Claude"))
		})

		Context("with Cursor's own model mapped onto a Keygate model", func() {
			BeforeEach(func() {
				opts.Unary.Mapped = func(context.Context) (map[string]string, error) {
					return map[string]string{"cursor-model": "Team GPT"}, nil
				}
			})

			It("marks Cursor's entry with the Keygate model it runs on, keeping it Cursor's to pick", func() {
				resp, err := ai.AvailableModels(ctx, connect.NewRequest(&aiserverv1.AvailableModelsRequest{}))
				Expect(err).NotTo(HaveOccurred())
				Expect(resp.Msg.GetModelNames()).To(Equal([]string{"cursor-model", "kg-1", "kg-2"}))
				cursorEntry := resp.Msg.GetModels()[0]
				Expect(cursorEntry.GetName()).To(Equal("cursor-model"))
				Expect(cursorEntry.GetModelPickerBadges()).To(HaveExactElements(HaveField("Label", "Keygate: Team GPT")))
				Expect(cursorEntry.GetTooltipData().GetMarkdownContent()).To(ContainSubstring("Team GPT"))
				Expect(resp.Msg.GetModels()[1].GetModelPickerBadges()).To(HaveExactElements(HaveField("Label", "openai.example")))
			})
		})

		It("advertises no smart-approval classifier, which Keygate does not run, so the user is asked", func() {
			resp, err := ai.AvailableModels(ctx, connect.NewRequest(&aiserverv1.AvailableModelsRequest{}))
			Expect(err).NotTo(HaveOccurred())
			for _, m := range resp.Msg.GetModels()[1:] {
				Expect(m.SupportsSmartModeClassifier).NotTo(BeNil(), m.GetName())
				Expect(m.GetSupportsSmartModeClassifier()).To(BeFalse(), m.GetName())
			}
		})

		It("advertises each model's parameters, variants and context windows, and nothing for a model without choices", func() {
			resp, err := ai.AvailableModels(ctx, connect.NewRequest(&aiserverv1.AvailableModelsRequest{UseModelParameters: proto.Bool(true)}))
			Expect(err).NotTo(HaveOccurred())
			gpt := resp.Msg.GetModels()[1]
			var ids []string
			for _, d := range gpt.GetParameterDefinitions() {
				ids = append(ids, d.GetId())
			}
			Expect(ids).To(Equal([]string{"reasoning", "fast", "context"}))
			Expect(gpt.GetVariants()).NotTo(BeEmpty())
			Expect(gpt.GetContextTokenLimit()).To(BeEquivalentTo(272000))
			Expect(gpt.GetContextTokenLimitForMaxMode()).To(BeEquivalentTo(1050000))
			claude := resp.Msg.GetModels()[2]
			Expect(claude.GetParameterDefinitions()).To(BeEmpty())
			Expect(claude.GetVariants()).To(BeEmpty())
			Expect(claude.ContextTokenLimit).To(BeNil())
		})

		Context("when upstream fails", func() {
			BeforeEach(func() { upstream.err = errors.New("offline") })

			It("answers with Keygate's models only", func() {
				resp, err := ai.AvailableModels(ctx, connect.NewRequest(&aiserverv1.AvailableModelsRequest{}))
				Expect(err).NotTo(HaveOccurred())
				Expect(resp.Msg.GetModelNames()).To(Equal([]string{"kg-1", "kg-2"}))
			})
		})

		Context("when the catalog fails", func() {
			BeforeEach(func() { opts.Unary.Catalog = staticCatalog{err: errors.New("db down")} })

			It("still answers with Cursor's models", func() {
				resp, err := ai.AvailableModels(ctx, connect.NewRequest(&aiserverv1.AvailableModelsRequest{}))
				Expect(err).NotTo(HaveOccurred())
				Expect(resp.Msg.GetModelNames()).To(Equal([]string{"cursor-model"}))
			})
		})

		It("accepts a gzip, enveloped request body", func() {
			body, _ := proto.Marshal(&aiserverv1.AvailableModelsRequest{IsNightly: true})
			resp := postProto(env.HTTP1, env.URL+aiserverv1connect.AiServiceAvailableModelsProcedure, frame.Encode(0, body), true)
			Expect(resp.StatusCode).To(Equal(http.StatusOK))
		})
	})

	Describe("GetUsableModels", func() {
		It("appends Keygate's models on the aiserver.v1 path", func() {
			resp, err := ai.GetUsableModels(ctx, connect.NewRequest(&aiserverv1.GetUsableModelsRequest{}))
			Expect(err).NotTo(HaveOccurred())
			var names []string
			for _, m := range resp.Msg.GetModels() {
				names = append(names, m.GetModelName())
			}
			Expect(names).To(Equal([]string{"cursor-model", "kg-1", "kg-2"}))
		})

		It("appends Keygate's models with a dummy key on the agent.v1 path", func() {
			resp, err := agent.GetUsableModels(ctx, connect.NewRequest(&agentv1.GetUsableModelsRequest{}))
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Msg.GetModels()).To(HaveLen(3))
			kg := resp.Msg.GetModels()[1]
			Expect(kg.GetModelId()).To(Equal("kg-1"))
			Expect(kg.GetDisplayName()).To(Equal("Team GPT"))
			Expect(kg.GetApiKeyCredentials().GetApiKey()).To(Equal(unary.LocalAPIKey))
		})
	})

	Describe("defaults", func() {
		It("names the first Keygate model as the default and the thinking model", func() {
			resp, err := ai.GetDefaultModel(ctx, connect.NewRequest(&aiserverv1.GetDefaultModelRequest{}))
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Msg.GetModel()).To(Equal("kg-1"))
			Expect(resp.Msg.GetThinkingModel()).To(Equal("kg-1"))
			Expect(resp.Msg.GetMaxMode()).To(BeFalse())
		})

		It("asks the client never to switch new chats away from Keygate's models", func() {
			resp, err := ai.GetDefaultModelNudgeData(ctx, connect.NewRequest(&aiserverv1.GetDefaultModelNudgeDataRequest{}))
			Expect(err).NotTo(HaveOccurred())
			Expect(resp.Msg.GetNudgeDate()).To(Equal("0"))
			Expect(resp.Msg.GetShouldDefaultSwitchOnNewChat()).To(BeFalse())
			Expect(resp.Msg.GetModelsWithNoDefaultSwitch()).To(Equal([]string{"kg-1", "kg-2"}))
		})

		It("names the first Keygate model for the CLI on both paths", func() {
			a, err := ai.GetDefaultModelForCli(ctx, connect.NewRequest(&aiserverv1.GetDefaultModelForCliRequest{}))
			Expect(err).NotTo(HaveOccurred())
			Expect(a.Msg.GetModel().GetModelName()).To(Equal("kg-1"))
			b, err := agent.GetDefaultModelForCli(ctx, connect.NewRequest(&agentv1.GetDefaultModelForCliRequest{}))
			Expect(err).NotTo(HaveOccurred())
			Expect(b.Msg.GetModel().GetModelId()).To(Equal("kg-1"))
		})

		Context("when Keygate has no models", func() {
			BeforeEach(func() {
				opts.Unary.Catalog = staticCatalog{}
				upstream.answers[aiserverv1connect.AiServiceGetDefaultModelProcedure] = &aiserverv1.GetDefaultModelResponse{Model: "cursor-model"}
			})

			It("passes Cursor's default through", func() {
				resp, err := ai.GetDefaultModel(ctx, connect.NewRequest(&aiserverv1.GetDefaultModelRequest{}))
				Expect(err).NotTo(HaveOccurred())
				Expect(resp.Msg.GetModel()).To(Equal("cursor-model"))
			})
		})
	})

	Describe("UpdateConversationMetadata", func() {
		It("is accepted and ignored", func() {
			_, err := agent.UpdateConversationMetadata(ctx, connect.NewRequest(&agentv1.UpdateConversationMetadataRequest{ConversationId: "c"}))
			Expect(err).NotTo(HaveOccurred())
		})
	})

	Describe("routes left to Cursor", func() {
		It("are not mounted, so the pass-through can take them", func() {
			Expect(env.Server.Routes()).NotTo(HaveKey(aiserverv1connect.AiServiceServerTimeProcedure))
		})
	})

	Describe("local stubs", func() {
		DescribeTable("answer with their fixed status and an empty body",
			func(path string, status int, grpcType bool) {
				resp, err := env.HTTP1.Post(env.URL+path, "application/proto", nil)
				Expect(err).NotTo(HaveOccurred())
				defer resp.Body.Close()
				Expect(resp.StatusCode).To(Equal(status))
				Expect(resp.ContentLength).To(BeZero())
				if grpcType {
					Expect(resp.Header.Get("Content-Type")).To(Equal("application/grpc"))
				}
			},
			Entry("the legacy /agent/v1/run probe is 404, so the client falls back to RunSSE", "/agent/v1/run", 404, false),
			Entry("MintAgentStoreToken is 400", "/aiserver.v1.BackgroundComposerService/MintAgentStoreToken", 400, true),
			Entry("ListPrivateWorkers is 400", "/aiserver.v1.BackgroundComposerService/ListPrivateWorkers", 400, true),
			Entry("ListEnvironments is 400", "/aiserver.v1.BackgroundComposerService/ListEnvironments", 400, true),
			Entry("ListBackgroundComposers is 400", "/aiserver.v1.BackgroundComposerService/ListBackgroundComposers", 400, true),
			Entry("FSSyncFile is 404", "/aiserver.v1.FileSyncService/FSSyncFile", 404, true),
			Entry("the websocket reachability probe is 404", "/ws-reachability-probe", 404, false),
		)
	})
})
