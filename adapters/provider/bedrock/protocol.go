package bedrock

import (
	"errors"
	"net/url"
	"strings"

	"keygate/adapters/provider/anthropic"
	"keygate/adapters/provider/protocol"
	"keygate/adapters/provider/wire"
	"keygate/domain/llm"
	"keygate/ports"
)

const (
	label          = "Bedrock Converse"
	anthropicLabel = "Bedrock Anthropic"
	// eventStream is the media type of AWS's binary event stream.
	eventStream = "application/vnd.amazon.eventstream"
)

// cloud is what a Bedrock provider is configured with, for both protocols.
func cloud() *protocol.Cloud {
	return &protocol.Cloud{
		Fields: []protocol.CloudField{protocol.FieldRegion, protocol.FieldProfile, protocol.FieldRoleARN,
			protocol.FieldWebIdentityTokenFile},
		Sources: []ports.CredentialSource{ports.CredentialKeys, ports.CredentialProfile, ports.CredentialWebIdentity,
			ports.CredentialInstanceRole, ports.CredentialDefault},
		KeyFormat: "ACCESS_KEY_ID:SECRET_ACCESS_KEY[:SESSION_TOKEN]",
		BaseURL:   func(c ports.CloudSettings) string { return "https://bedrock-runtime." + c.Region + ".amazonaws.com" },
		Check: func(c ports.CloudSettings) error {
			if c.Region == "" {
				return errors.New("name the AWS region requests are signed for (us-east-1)")
			}
			return nil
		},
	}
}

// shared are the credential cache and signer of both protocols: a provider
// switched between them keeps its cached credentials.
var shared = newSigner()

// Converse is Bedrock's Converse API (ConverseStream).
func Converse() protocol.Protocol {
	return protocol.Protocol{
		Kind:     llm.ProviderBedrockConverse,
		Name:     label,
		Title:    "AWS Bedrock Converse (every model family)",
		URL:      modelURL("converse-stream"),
		Sign:     shared.sign,
		Cloud:    cloud(),
		Frames:   newFrames,
		Accept:   eventStream,
		Reserved: []string{"messages", "system", "toolConfig"},
		AppendRequest: func(dst []byte, req llm.Request, o protocol.RequestOptions) ([]byte, error) {
			return AppendConverse(dst, req, o.Extras)
		},
		NewDecoder: func() protocol.Decoder { return &ConverseDecoder{} },
		Models:     protocol.Models{Label: "Bedrock", Discover: shared.discover},
	}
}

// AnthropicVersion is the body's anthropic_version on Bedrock.
const AnthropicVersion = "bedrock-2023-05-31"

// Anthropic is Anthropic's Messages body on Bedrock
// (InvokeModelWithResponseStream).
func Anthropic() protocol.Protocol {
	return protocol.Protocol{
		Kind:     llm.ProviderBedrockAnthropic,
		Name:     anthropicLabel,
		Title:    "AWS Bedrock, Anthropic Messages (InvokeModelWithResponseStream)",
		URL:      modelURL("invoke-with-response-stream"),
		Sign:     shared.sign,
		Cloud:    cloud(),
		Frames:   newFrames,
		Accept:   eventStream,
		Reserved: []string{"messages", "system", "tools", "anthropic_version"},
		AppendRequest: func(dst []byte, req llm.Request, o protocol.RequestOptions) ([]byte, error) {
			return AppendAnthropic(dst, req, o.Extras)
		},
		NewDecoder: func() protocol.Decoder { return &AnthropicDecoder{} },
		Models:     protocol.Models{Label: "Bedrock", Discover: shared.discover},
	}
}

// modelURL is {base}/model/{modelId}/{action}: the model id (a foundation
// model, an inference profile such as us.anthropic.claude-…, or an ARN) is
// one path segment escaped as the AWS SDK escapes it (":" and "/" too).
func modelURL(action string) func(base url.URL, model string) url.URL {
	return func(base url.URL, model string) url.URL {
		prefix := strings.TrimRight(base.EscapedPath(), "/")
		base.Path = strings.TrimRight(base.Path, "/") + "/model/" + model + "/" + action
		base.RawPath = prefix + "/model/" + strings.ReplaceAll(url.PathEscape(model), ":", "%3A") + "/" + action
		return base
	}
}

// AppendAnthropic appends the InvokeModel body of req: Anthropic's Messages
// body as adapters/provider/anthropic writes it (cache breakpoints
// included), with anthropic_version first and without the model (it is in
// the URL) or stream (the action streams).
func AppendAnthropic(dst []byte, req llm.Request, extras *wire.Extras) ([]byte, error) {
	if err := protocol.RefuseFillIn(anthropicLabel, req); err != nil {
		return dst, err
	}
	body, err := anthropic.AppendRequest(nil, req, anthropic.Options{Extras: extras})
	if err != nil {
		return dst, err
	}
	inner, err := wire.Native(nil, body, []wire.Member{{Key: "model"}, {Key: "stream"}}, nil)
	if err != nil {
		return dst, err
	}
	dst = append(dst, `{"anthropic_version":"`+AnthropicVersion+`"`...)
	if len(inner) > 2 {
		dst = append(dst, ',')
	}
	return append(dst, inner[1:]...), nil
}
