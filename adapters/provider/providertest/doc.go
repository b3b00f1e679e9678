// Package providertest is test support for everything that talks to model
// providers: a scriptable fake provider server that speaks the SSE of OpenAI
// Chat Completions, OpenAI Responses, Anthropic Messages and the Gemini API
// faithfully (Server, and the transcript builders ChatSSE, ResponsesSSE,
// AnthropicSSE, GeminiSSE;
// CompletionsSSE and MistralSSE for the fill-in-the-middle protocols, with
// FillInRequest),
// and an in-memory ports.CallRecorder (Recorder).
//
// Place in the hexagon: test support for adapters/provider and for every
// later end-to-end test and benchmark. It is a normal (non-_test) package so
// other packages' tests can import it; production code never does. The
// server listens on loopback only.
package providertest
