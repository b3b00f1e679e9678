// Package output builds the server messages of a Cursor turn: interaction
// updates (text, thinking, tool cards, token counts, turn end, summaries,
// queued-message states), exec and interaction requests, exec aborts, KV
// requests and checkpoint updates. Each constructor wraps one payload in
// its AgentServerMessage envelope, so the run layer reads as the sequence
// of docs/cursor-protocol.md, "One turn on the wire".
//
// Place in the hexagon: part of the Cursor inbound adapter; pure
// constructors over the generated schema and domain/llm.
package output
