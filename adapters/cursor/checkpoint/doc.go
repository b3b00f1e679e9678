// Package checkpoint projects a Keygate conversation onto Cursor's
// ConversationStateStructure, the checkpoint the client stores and sends
// back with its next run request.
//
//   - root_prompt_messages_json: one blob per model-visible message, the
//     message's canonical encoding (conversation.Message.Encode), so a
//     client-held checkpoint can be imported back (conversation.DecodeMessage).
//   - turns: the client's earlier turns as it sent them, then the current
//     turn: a ConversationTurnStructure blob whose user message and steps
//     (assistant text, thinking, tool cards) are blobs too.
//   - pending_tool_calls: empty when settled; in a staged checkpoint one JSON
//     assistant message with the open calls and Keygate's round id, which a
//     ResumeAction hands back.
//
// Every blob id is the SHA-256 of its data. The projection returns the
// blobs a state refers to; the run layer SETs those the client has not
// confirmed and publishes the state only after every ACK; see
// docs/cursor-protocol.md, "Never publish a checkpoint with unacknowledged blobs".
// Fields Keygate does not manage are carried over from the client's state.
//
// Place in the hexagon: part of the Cursor inbound adapter; pure.
package checkpoint
