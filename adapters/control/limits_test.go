package control_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"google.golang.org/protobuf/types/known/timestamppb"

	"keygate/domain/access"
	"keygate/domain/identity"
	controlv1 "keygate/gen/keygate/control/v1"
	"keygate/gen/keygate/control/v1/controlv1connect"
)

var _ = Describe("Input limits on the control API", func() {
	var (
		a   *api
		ctx context.Context
	)
	admin := access.Principal{Identity: identity.Identity{UserID: "root"}, Role: access.Admin}
	member := access.Principal{Identity: identity.Identity{UserID: "ada"}, Role: access.Member}
	BeforeEach(func() { ctx = context.Background() })

	Describe("model settings, checked when saved, as an administrator", func() {
		BeforeEach(func() { a = newAPIWith(as(admin)) })
		create := func(edit func(*controlv1.ModelSettings), apiKey string) error {
			s := a.chatSettings("gpt-a")
			edit(s)
			_, err := a.models.CreateModel(ctx, connect.NewRequest(&controlv1.CreateModelRequest{Settings: s, ApiKey: apiKey}))
			return err
		}
		noEdit := func(*controlv1.ModelSettings) {}
		headers := func(h map[string]string) func(*controlv1.ModelSettings) {
			return func(s *controlv1.ModelSettings) { s.CustomHeaders = h }
		}
		listed := func() int {
			list, err := a.models.ListModels(ctx, connect.NewRequest(&controlv1.ListModelsRequest{}))
			Expect(err).NotTo(HaveOccurred())
			return len(list.Msg.GetModels())
		}

		DescribeTable("refuses a field over its limit or unfit to send, naming the field and saving nothing",
			func(edit func(*controlv1.ModelSettings), apiKey string, field, why string) {
				err := create(edit, apiKey)
				Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
				Expect(err.Error()).To(ContainSubstring(field))
				Expect(err.Error()).To(ContainSubstring(why))
				Expect(listed()).To(BeZero())
				Expect(a.upstream.Requests()).To(BeEmpty())
			},
			Entry("a display name of 201 bytes", func(s *controlv1.ModelSettings) { s.DisplayName = strings.Repeat("n", 201) }, "sk-x", "display_name", "at most 200 bytes"),
			Entry("a display name with a line break", func(s *controlv1.ModelSettings) { s.DisplayName = "GPT\r\nX-Evil: 1" }, "sk-x", "display_name", "control characters"),
			Entry("a group of 101 bytes", func(s *controlv1.ModelSettings) { s.GroupName = strings.Repeat("g", 101) }, "sk-x", "group_name", "at most 100 bytes"),
			Entry("a tooltip of 1001 bytes", func(s *controlv1.ModelSettings) { s.Tooltip = strings.Repeat("t", 1001) }, "sk-x", "tooltip", "at most 1000 bytes"),
			Entry("a model id of 257 bytes", func(s *controlv1.ModelSettings) { s.ModelId = strings.Repeat("m", 257) }, "sk-x", "model_id", "at most 256 bytes"),
			Entry("a base URL of 2049 bytes", func(s *controlv1.ModelSettings) { s.BaseUrl += "/" + strings.Repeat("p", 2048) }, "sk-x", "base_url", "at most 2048 bytes"),
			Entry("a base URL with credentials", func(s *controlv1.ModelSettings) { s.BaseUrl = "https://user:pass@api.example.com/v1" }, "sk-x", "base_url", "user:password@"),
			Entry("a base URL that is not http(s)", func(s *controlv1.ModelSettings) { s.BaseUrl = "file:///etc/passwd" }, "sk-x", "base_url", "http(s)"),
			Entry("an API key of 8 KiB and one byte", noEdit, strings.Repeat("k", 8<<10+1), "api_key", "at most 8192 bytes"),
			Entry("an API key with a line break", noEdit, "sk-abc\r\nX-Evil: 1", "api_key", "one line"),
			Entry("a credentials file that is not JSON", noEdit, "{\"type\": \"service_account\",\n", "api_key", "valid JSON"),
			Entry("extra parameters over 64 KiB", func(s *controlv1.ModelSettings) {
				s.ExtraParamsJson = `{"x":"` + strings.Repeat("p", 64<<10) + `"}`
			}, "sk-x", "extra_params_json", "at most 65536 bytes"),
			Entry("33 custom headers", func(s *controlv1.ModelSettings) {
				s.CustomHeaders = map[string]string{}
				for i := range 33 {
					s.CustomHeaders[fmt.Sprintf("X-H%d", i)] = "v"
				}
			}, "sk-x", "custom_headers", "at most 32"),
			Entry("a header name with a space", headers(map[string]string{"X Bad": "v"}), "sk-x", "custom_headers", "not a valid HTTP header name"),
			Entry("a header name with a colon", headers(map[string]string{"X-A:B": "v"}), "sk-x", "custom_headers", "not a valid HTTP header name"),
			Entry("a header value with CR LF", headers(map[string]string{"X-A": "v\r\nX-Evil: 1"}), "sk-x", "custom_headers", "CR, LF or NUL"),
			Entry("a header value with NUL", headers(map[string]string{"X-A": "v\x00"}), "sk-x", "custom_headers", "CR, LF or NUL"),
			Entry("a header value of 8 KiB and one byte", headers(map[string]string{"X-A": strings.Repeat("v", 8<<10+1)}), "sk-x", "custom_headers", "too long"),
			Entry("the same header twice in other case", headers(map[string]string{"X-A": "1", "x-a": "2"}), "sk-x", "custom_headers", "twice"),
			Entry("Host", headers(map[string]string{"Host": "internal"}), "sk-x", "custom_headers", "Keygate sets it from the base URL"),
			Entry("Content-Length", headers(map[string]string{"Content-Length": "0"}), "sk-x", "custom_headers", "from the request body"),
			Entry("Transfer-Encoding", headers(map[string]string{"Transfer-Encoding": "chunked"}), "sk-x", "custom_headers", "frames the request"),
			Entry("Connection", headers(map[string]string{"Connection": "close"}), "sk-x", "custom_headers", "manages its connections"),
			Entry("Upgrade", headers(map[string]string{"Upgrade": "h2c"}), "sk-x", "custom_headers", "manages its connections"),
			Entry("TE", headers(map[string]string{"TE": "trailers"}), "sk-x", "custom_headers", "frames the request"),
			Entry("Trailer", headers(map[string]string{"Trailer": "X"}), "sk-x", "custom_headers", "frames the request"),
			Entry("Proxy-Authorization", headers(map[string]string{"Proxy-Authorization": "Basic x"}), "sk-x", "custom_headers", "proxy headers"),
			Entry("Authorization", headers(map[string]string{"Authorization": "Bearer other"}), "sk-x", "custom_headers", "carries a credential"),
			Entry("X-Api-Key", headers(map[string]string{"X-Api-Key": "other"}), "sk-x", "custom_headers", "carries a credential"),
			Entry("api-key", headers(map[string]string{"api-key": "other"}), "sk-x", "custom_headers", "carries a credential"),
			Entry("x-goog-api-key", headers(map[string]string{"x-goog-api-key": "other"}), "sk-x", "custom_headers", "carries a credential"),
			Entry("Cookie", headers(map[string]string{"Cookie": "session=1"}), "sk-x", "custom_headers", "carries a credential"),
		)

		It("accepts headers a provider needs, sent as saved", func() {
			Expect(create(headers(map[string]string{"anthropic-beta": "x", "OpenAI-Organization": "org-1"}), "sk-x")).To(Succeed())
		})

		It("leaves a model unchanged when an update is refused", func() {
			m := a.create("gpt-a", "sk-kept-0123456789")
			s := a.chatSettings("gpt-a")
			s.DisplayName, s.CustomHeaders = "Renamed", map[string]string{"Host": "internal"}
			_, err := a.models.UpdateModel(ctx, connect.NewRequest(&controlv1.UpdateModelRequest{Id: m.GetId(), Settings: s, ApiKey: "sk-new-0123456789"}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			got, err := a.store.ModelConfig(ctx, m.GetId())
			Expect(err).NotTo(HaveOccurred())
			Expect(got.DisplayName).To(Equal("Fake gpt-a"))
			Expect(got.CustomHeaders).To(BeNil())
			list, _ := a.models.ListModels(ctx, connect.NewRequest(&controlv1.ListModelsRequest{}))
			Expect(list.Msg.GetModels()[0].GetApiKeyHint()).To(Equal("sk-…6789"))
		})

		It("refuses the same headers in a discovery, before anything is sent", func() {
			_, err := a.models.DiscoverModels(ctx, connect.NewRequest(&controlv1.DiscoverModelsRequest{
				ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: a.upstream.URL + "/v1", ApiKey: "sk-x",
				CustomHeaders: map[string]string{"X-A": "v\r\nHost: evil"}}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			Expect(err.Error()).To(ContainSubstring("custom_headers"))
			Expect(a.upstream.Requests()).To(BeEmpty())
		})
	})

	Describe("the outbound policy on base URLs (ModelsOptions.CheckURL)", func() {
		var asked []string
		BeforeEach(func() {
			a, asked = newAPIWith(as(admin)), nil
			a.checkURL = func(_ context.Context, raw string) error {
				asked = append(asked, raw)
				if strings.Contains(raw, "169.254.169.254") {
					return errors.New("169.254.169.254 is a link-local address; an administrator must allow it in KEYGATE_EGRESS_ALLOW")
				}
				return nil
			}
		})
		metadata := "http://169.254.169.254/latest/meta-data"

		It("is asked on create, update and discovery, and its reason is the base_url field's message", func() {
			s := a.chatSettings("gpt-a")
			s.BaseUrl = metadata
			_, err := a.models.CreateModel(ctx, connect.NewRequest(&controlv1.CreateModelRequest{Settings: s, ApiKey: "sk-x"}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			Expect(err.Error()).To(ContainSubstring("invalid base_url: 169.254.169.254 is a link-local address"))

			m := a.create("gpt-a", "sk-x-0123456789")
			_, err = a.models.UpdateModel(ctx, connect.NewRequest(&controlv1.UpdateModelRequest{Id: m.GetId(), Settings: s, ApiKey: "sk-y-0123456789"}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			Expect(err.Error()).To(ContainSubstring("link-local"))

			_, err = a.models.DiscoverModels(ctx, connect.NewRequest(&controlv1.DiscoverModelsRequest{
				ProviderKind: controlv1.ProviderKind_PROVIDER_KIND_OPENAI_CHAT, BaseUrl: metadata, ApiKey: "sk-x"}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			Expect(err.Error()).To(ContainSubstring("link-local"))
			Expect(asked).To(Equal([]string{metadata, a.upstream.URL + "/v1", metadata, metadata}))
		})
	})

	Describe("request bytes", func() {
		It("refuses a request over 1 MiB before decoding it, as an administrator", func() {
			a = newAPIWith(as(admin))
			s := a.chatSettings("gpt-a")
			s.DisplayName = strings.Repeat("n", 10<<20)
			_, err := a.models.CreateModel(ctx, connect.NewRequest(&controlv1.CreateModelRequest{Settings: s, ApiKey: "sk-x"}))
			Expect(err).To(HaveConnectCode(connect.CodeResourceExhausted))
			Expect(a.store.ModelConfigs(ctx)).To(BeEmpty())
		})

		It("refuses a small compressed request that inflates over 1 MiB, as a member", func() {
			a = newAPIWith(as(member))
			gz := controlv1connect.NewCallServiceClient(a.server.Client(), a.server.URL, connect.WithSendGzip())
			_, err := gz.ListCalls(ctx, connect.NewRequest(&controlv1.ListCallsRequest{
				Filter: &controlv1.CallFilter{UserId: strings.Repeat("u", 1<<20+1)}}))
			Expect(err).To(HaveConnectCode(connect.CodeResourceExhausted))
		})

		It("refuses an uncompressed one the same way", func() {
			a = newAPIWith(as(member))
			body := `{"filter":{"userId":"` + strings.Repeat("u", 1<<20) + `"}}`
			resp, err := a.server.Client().Post(a.server.URL+controlv1connect.CallServiceListCallsProcedure, "application/json", strings.NewReader(body))
			Expect(err).NotTo(HaveOccurred())
			resp.Body.Close()
			Expect(resp.StatusCode).To(Equal(http.StatusTooManyRequests), "Connect's HTTP status for resource_exhausted")
		})
	})

	Describe("filters and pages, as a member", func() {
		BeforeEach(func() { a = newAPIWith(as(member)) })

		DescribeTable("refuses an over-long call filter, naming it",
			func(f *controlv1.CallFilter, field string) {
				_, err := a.calls.ListCalls(ctx, connect.NewRequest(&controlv1.ListCallsRequest{Filter: f}))
				Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
				Expect(err.Error()).To(ContainSubstring(field))
			},
			Entry("model id", &controlv1.CallFilter{ModelId: strings.Repeat("m", 257)}, "filter.model_id"),
			Entry("conversation id", &controlv1.CallFilter{ConversationId: strings.Repeat("c", 257)}, "filter.conversation_id"),
			Entry("user id", &controlv1.CallFilter{UserId: strings.Repeat("u", 257)}, "filter.user_id"),
		)

		It("refuses an over-long page token", func() {
			_, err := a.calls.ListCalls(ctx, connect.NewRequest(&controlv1.ListCallsRequest{PageToken: strings.Repeat("A", 513)}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			_, err = a.talks.ListConversations(ctx, connect.NewRequest(&controlv1.ListConversationsRequest{PageToken: strings.Repeat("A", 513)}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
		})

		It("refuses a dashboard range that would hold more than a week of minutes", func() {
			end := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			_, err := a.dashboard.GetDashboard(ctx, connect.NewRequest(&controlv1.GetDashboardRequest{
				StartTime: timestamppb.New(time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)), EndTime: timestamppb.New(end),
				BucketSize: controlv1.BucketSize_BUCKET_SIZE_MINUTE}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument), fmt.Sprint(err))
			Expect(err.Error()).To(ContainSubstring("bucket_size"))
			_, err = a.dashboard.GetDashboard(ctx, connect.NewRequest(&controlv1.GetDashboardRequest{
				StartTime: timestamppb.New(end.Add(-7*24*time.Hour - time.Minute)), EndTime: timestamppb.New(end),
				BucketSize: controlv1.BucketSize_BUCKET_SIZE_MINUTE}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument), "one minute over")
			_, err = a.dashboard.GetDashboard(ctx, connect.NewRequest(&controlv1.GetDashboardRequest{
				StartTime: timestamppb.New(end.Add(-7 * 24 * time.Hour)), EndTime: timestamppb.New(end),
				BucketSize: controlv1.BucketSize_BUCKET_SIZE_MINUTE}))
			Expect(err).NotTo(HaveOccurred(), "a week of minutes is the limit")
		})

		It("refuses an over-long dashboard filter", func() {
			_, err := a.dashboard.GetDashboard(ctx, connect.NewRequest(&controlv1.GetDashboardRequest{UserId: strings.Repeat("u", 257)}))
			Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
			Expect(err.Error()).To(ContainSubstring("user_id"))
		})
	})

	Describe("settings, as an administrator", func() {
		BeforeEach(func() { a = newAPIWith(as(admin)) })
		update := func(s *controlv1.Settings) error {
			_, err := a.setting.UpdateSettings(ctx, connect.NewRequest(&controlv1.UpdateSettingsRequest{Settings: s}))
			return err
		}

		DescribeTable("refuses settings over their limits, naming the field",
			func(s *controlv1.Settings, field string) {
				err := update(s)
				Expect(err).To(HaveConnectCode(connect.CodeInvalidArgument))
				Expect(err.Error()).To(ContainSubstring(field))
				got, err := a.setting.GetSettings(ctx, connect.NewRequest(&controlv1.GetSettingsRequest{}))
				Expect(err).NotTo(HaveOccurred())
				Expect(got.Msg.GetSettings().GetPrices()).To(BeEmpty(), "nothing was saved")
			},
			Entry("1001 prices", func() *controlv1.Settings {
				s := &controlv1.Settings{}
				for i := range 1001 {
					s.Prices = append(s.Prices, &controlv1.ModelPrice{ModelId: fmt.Sprintf("m%d", i)})
				}
				return s
			}(), "prices"),
			Entry("a price's model id of 257 bytes", &controlv1.Settings{Prices: []*controlv1.ModelPrice{{ModelId: strings.Repeat("m", 257)}}}, "prices.model_id"),
			Entry("a price that is not a number", &controlv1.Settings{Prices: []*controlv1.ModelPrice{{ModelId: "m", InputPerMillion: math.NaN()}}}, "finite"),
			Entry("an infinite price", &controlv1.Settings{Prices: []*controlv1.ModelPrice{{ModelId: "m", OutputPerMillion: math.Inf(1)}}}, "finite"),
			Entry("a retention over ten years", &controlv1.Settings{DetailedRetentionHours: 10*366*24 + 1}, "detailed_retention_hours"),
		)
	})
})
