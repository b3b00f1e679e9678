// Package tools is the Cursor adapter's tool layer: the tools the model
// sees in each mode and the mapping of a model's tool call to what the
// Cursor client runs (an ExecServerMessage) or asks the user (an
// InteractionQuery), and of the answer back to a tool result for the model
// and a typed ToolCall for the client's tool card.
//
// Each tool is declared in its own file as a table entry (name, the modes
// that offer it, where its steps run, and its start, exec-result,
// interaction and web handlers), described in catalog.json (the project's
// own descriptions and JSON schemas) and listed once in registry.go. The
// package's specs check that the three agree and that every registered
// tool has a behaviour spec.
//
// Place in the hexagon: part of the Cursor inbound adapter. It knows the
// wire schema (gen/cursor/agent/v1) and domain/llm; it does no I/O. The run
// layer (package agent) sends what it builds and feeds back what arrives.
//
// Tool names are matched case- and punctuation-insensitively (Read, read,
// READ and "re_ad" are one tool): models do not keep to one spelling.
package tools
