// Package providertest is test support for everything that talks to model
// providers: a scriptable fake provider server that speaks the SSE of OpenAI
// Chat Completions, OpenAI Responses and Anthropic Messages faithfully
// (Server, and the transcript builders ChatSSE, ResponsesSSE, AnthropicSSE;
// CompletionsSSE and MistralSSE for the fill-in-the-middle protocols, with
// FillInRequest),
// and an in-memory ports.CallRecorder (Recorder).
//
// Place in the hexagon: test support for adapters/provider and for every
// later end-to-end test and benchmark. It is a normal (non-_test) package so
// other packages' tests can import it; production code never does. The
// server listens on loopback only.
package providertest
