// Package fim speaks the two fill-in-the-middle (FIM) protocols Cursor Tab's
// edit predictions can be served on: OpenAI-style completions with a
// suffix (Completions: POST /v1/completions, spoken by DeepSeek's FIM beta,
// vLLM, Ollama, llama.cpp and LM Studio) and Mistral's FIM endpoint
// (Mistral: POST /v1/fim/completions, Codestral). A FIM request is a
// prefix and a suffix (llm.Request.FillIn), never a conversation, and the
// model writes the text between them.
//
// Place in the hexagon: adapter (driven side). Each protocol is described
// once, as a protocol.Protocol with FillIn set, registered in the parent
// package provider: URL rule, bearer auth, request body, SSE decoder and
// model listing. HTTP, error classification of statuses, idle watchdog and
// call recording live in package provider, so a FIM call is recorded,
// budgeted and routed like any other.
//
// The wire types are hand-written on purpose, like the sibling protocol
// packages: the body is appended with package wire so the same prefix and
// suffix always give the same bytes (providers cache on the exact prefix),
// and stream chunks decode with encoding/json into one small struct naming
// only the fields Keygate reads, so a token costs no SDK type's
// allocations. One decoder reads both streams: a completions chunk carries
// its text in choices[].text, a Mistral chunk (a chat-completion chunk) in
// choices[].delta.content.
//
// Imports: the standard library, adapters/provider/compat,
// adapters/provider/failure, adapters/provider/protocol,
// adapters/provider/sse, adapters/provider/wire and domain/llm.
package fim
