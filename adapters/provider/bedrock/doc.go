// Package bedrock speaks AWS Bedrock: the Converse API (ConverseStream,
// every model family Bedrock serves: tool use, images, reasoning, cachePoint
// prompt caching, usage with cache reads and writes) and Anthropic's
// Messages body through InvokeModelWithResponseStream (anthropic_version
// bedrock-2023-05-31, each chunk a base64 Anthropic stream event).
//
// Keygate writes the request bytes itself, so that the same conversation
// gives byte-identical prefixes turn after turn for Bedrock's prompt cache;
// the AWS SDK for Go v2 signs them (aws/signer/v4, never by hand) with
// credentials from the provider's source: static keys from the sealed pool,
// a shared-config profile, a web identity token file exchanged at STS, the
// instance role (through the one client that may reach the metadata
// service) or the SDK's default chain. Credentials are cached per provider
// and refreshed before they expire. Responses are AWS's binary event
// stream, decoded with the SDK's eventstream package. Discovery lists
// ListFoundationModels and ListInferenceProfiles (cross-region profiles
// such as us.anthropic.claude-…) with the SDK's Bedrock client. Every
// connection, credential fetches included, goes through the HTTP clients the
// caller passes (the outbound policy's).
//
// Place in the hexagon: a protocol package under adapters/provider,
// registered in adapters/provider's builtin registry. Imports: the standard
// library, domain/llm, ports, adapters/provider/protocol,
// adapters/provider/anthropic, adapters/provider/failure,
// adapters/provider/sse, adapters/provider/wire,
// github.com/aws/aws-sdk-go-v2/aws, github.com/aws/aws-sdk-go-v2/aws/signer/v4,
// github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream,
// github.com/aws/aws-sdk-go-v2/config, github.com/aws/aws-sdk-go-v2/credentials,
// github.com/aws/aws-sdk-go-v2/credentials/stscreds,
// github.com/aws/aws-sdk-go-v2/credentials/ec2rolecreds,
// github.com/aws/aws-sdk-go-v2/feature/ec2/imds,
// github.com/aws/aws-sdk-go-v2/service/sts,
// github.com/aws/aws-sdk-go-v2/service/bedrock,
// github.com/aws/aws-sdk-go-v2/service/bedrock/types and
// github.com/aws/smithy-go.
package bedrock
