// Package anthropic speaks the Anthropic Messages protocol: it turns an
// llm.Request into the request body with prompt-cache breakpoints
// (AppendRequest) and the SSE response into llm.Events (Decoder).
//
// Place in the hexagon: adapter (driven side). Messages describes the
// protocol once (a protocol.Protocol registered in the parent package
// provider): URL rule, x-api-key auth with APIVersion, request writer,
// decoder, usage block and paginated model listing. HTTP, error
// classification of statuses, idle watchdog and call recording live in
// package provider.
//
// The wire types are hand-written on purpose. Request bodies are appended
// with package wire so the bytes are exactly Keygate's (the prompt cache keys
// on the prefix); stream events decode with encoding/json into one small
// struct naming only the fields Keygate reads, so the SDK's full types and
// their per-field allocations are not paid per token.
package anthropic
