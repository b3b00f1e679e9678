// Package tools is the Cursor adapter's tool layer: the tools the model
// sees in each mode and the mapping of a model's tool call to what the
// Cursor client runs (an ExecServerMessage) or asks the user (an
// InteractionQuery), and of the answer back to a tool result for the model
// and a typed ToolCall for the client's tool card.
//
// Each tool is declared in its own file: a registry entry (name, the modes
// that offer it, where its steps run) and a handler type, of which each
// call gets its own value holding that call's state (a shell's streams, the
// file an edit read). A handler starts its call and takes the answers its
// tool needs (an exec's result, the user's answer, a web outcome, a
// background task's end), each an optional interface; the shared plumbing
// it is handed (the call's id, arguments, Env and card) is the small call
// value, and Call, the type the run layer drives, only routes the answers
// and completes the card. Each tool is described in catalog.json (the
// project's own descriptions and JSON schemas) and listed once in
// registry.go. The package's specs check that the three agree, that each
// handler takes exactly the answers its tool's steps need, and that every
// registered tool has a behaviour spec.
//
// Place in the hexagon: part of the Cursor inbound adapter. It knows the
// wire schema (gen/cursor/agent/v1) and domain/llm; it does no I/O. The run
// layer (package agent) sends what it builds and feeds back what arrives.
//
// Tool names are matched case- and punctuation-insensitively (Read, read,
// READ and "re_ad" are one tool): models do not keep to one spelling.
//
// Two libraries do work the client relies on being right. A Shell exec
// carries its command's parse (simple commands, executables, redirects),
// from which the client decides what runs without asking; it comes from
// mvdan.cc/sh, a maintained parser of the whole bash grammar, because a
// split on spaces and separators misses commands in substitutions,
// function bodies and quoting. The edit card's unified diff and its line
// counts come from github.com/pmezard/go-difflib: a small, dependency-free
// port of Python's difflib that writes the standard unified format the
// client renders; it is finished rather than abandoned (its API has not
// needed to change), and the counts are read from the diff it wrote, so
// they always agree.
package tools
