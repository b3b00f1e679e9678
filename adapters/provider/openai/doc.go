// Package openai speaks the two OpenAI wire protocols, Chat Completions and
// Responses, including the OpenAI-compatible endpoints of DeepSeek,
// Kimi/Moonshot, GLM, Qwen/DashScope, OpenRouter and Azure OpenAI.
//
// Place in the hexagon: adapter (driven side). Each protocol is described
// once, by Chat and Responses (protocol.Protocol values registered in the
// parent package provider): its URL rule, bearer or Azure api-key auth, the
// request body (AppendChat, AppendResponses), the SSE decoder (ChatDecoder,
// ResponsesDecoder), its usage block and how an endpoint lists its models.
// HTTP, one attempt per call, error classification of statuses, idle
// watchdog and call recording live in package provider.
//
// The wire types are hand-written on purpose, in both directions. Requests
// are appended with package wire so Keygate controls every byte (prompt caches
// key on the exact prefix). Stream events are decoded with encoding/json into
// small per-event structs that name only the fields Keygate reads, so an
// unknown or padded field costs a skip and no allocation; the SDK types would
// decode (and allocate) every field of every chunk.
package openai
