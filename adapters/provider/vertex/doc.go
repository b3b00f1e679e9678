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
// Imports: the standard library, golang.org/x/oauth2,
// golang.org/x/oauth2/google, adapters/provider/anthropic,
// adapters/provider/compat, adapters/provider/gemini,
// adapters/provider/protocol, adapters/provider/sse,
// adapters/provider/wire, domain/llm and domain/modelfamily.
package vertex
