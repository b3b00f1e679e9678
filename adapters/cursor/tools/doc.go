// Package tools is the Cursor adapter's tool layer: the catalog of tools
// the model sees in each mode (catalog.json, the project's own schemas and
// descriptions) and the mapping of a model's tool call to what the Cursor
// client runs (an ExecServerMessage) and of the client's answer back to a
// tool result for the model and a typed ToolCall for the client's tool
// card.
//
// Place in the hexagon: part of the Cursor inbound adapter. It knows the
// wire schema (gen/cursor/agent/v1) and domain/llm; it does no I/O. The run
// layer (package agent) sends what it builds and feeds back what arrives.
//
// Tool names are matched case- and punctuation-insensitively, as the
// protocol notes require (Read, read, READ and "re_ad" are one tool).
package tools
