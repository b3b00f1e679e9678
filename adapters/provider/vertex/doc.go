// Package vertex speaks Google Vertex AI: Anthropic's models through
// streamRawPredict (Anthropic) and Google's Gemini models through
// streamGenerateContent (Gemini), with OAuth access tokens of a
// service-account key or the application-default credentials (Tokens).
//
// Place in the hexagon: adapter (driven side). Each protocol is a
// protocol.Protocol registered in the parent package provider. Neither
// has a wire format of its own: Vertex takes Anthropic's Messages body
// (without model, with anthropic_version) and answers with Anthropic's
// SSE events, and takes the Gemini API's GenerateContentRequest and
// answers with its SSE chunks, so the writers and decoders are those of
// packages anthropic and gemini. What this package adds is the URL of a
// project's location, the body rewrite, the translation of replay state
// (signatures go back only to the kind of endpoint that made them), the
// publisher model listing and the credentials.
//
// Calls carry no key header: Sign sets the bearer token of the provider's
// credential source (Tokens, one per credential, shared by both protocols)
// and Models.Discover lists with it. A provider's settings are a project
// and a location (Cloud); its base URL names the location's path, which a
// private endpoint's base keeps.
//
// Imports: the standard library, golang.org/x/oauth2,
// golang.org/x/oauth2/google, adapters/provider/anthropic,
// adapters/provider/failure, adapters/provider/gemini,
// adapters/provider/protocol, adapters/provider/sse,
// adapters/provider/wire, domain/llm, domain/modelfamily and ports.
package vertex
