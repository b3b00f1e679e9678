// Package compatapi serves Keygate's compatible API on the main listener:
// Anthropic Messages (POST /v1/messages, /v1/messages/count_tokens), OpenAI
// Chat Completions (POST /v1/chat/completions), OpenAI Responses (POST
// /v1/responses) and the model list (GET /v1/models), so that coding
// agents and scripts that speak a provider's own API reach the
// organisation's models through Keygate.
//
// It is shaped as a thin inbound adapter: it authenticates the caller (a
// gateway token as a bearer token or x-api-key; on a laptop the local
// user), bounds and reads the body, lets the protocol packages under
// adapters/provider parse it into an llm.Request (with the caller's body
// kept for a same-protocol target) and re-encode the model's events in the
// caller's protocol, and hands the call to the gateway use case. Every
// refusal is written in the caller's own error shape.
//
// Place in the hexagon: inbound adapter. Imports: the standard library,
// adapters/provider/anthropic, adapters/provider/openai and
// adapters/provider/wire (the wire formats are the protocols' own), app/gateway, domain, ports,
// go.uber.org/zap and golang.org/x/sync/semaphore (the bound on request bytes held at once).
package compatapi
