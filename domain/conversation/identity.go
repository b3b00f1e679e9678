package conversation

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// Message ids are deterministic so that every retry of the same input, tool
// result or model cycle names the same message, and storing it again is a
// no-op instead of a duplicate. The helpers below are the only places the
// formats are spelt out.

// Fixed ids of transient tails. They are sent to a provider but never stored.
const (
	// ContinueID is the user tail added when history ends with an assistant
	// message (providers reject assistant prefill).
	ContinueID = "runtime:continue"
	// CompactionInstructionID is the user tail of a summary call.
	CompactionInstructionID = "compaction:instruction"
)

const (
	requestContextPrefix = "request-context"
	runtimePrefix        = "runtime:"
)

// ContextChannel names a part of the request context that changes on its
// own and so is its own message: a change of one part appends that part
// alone, never the others again.
type ContextChannel string

// The channels of the request context, in the order a turn appends them.
const (
	// ContextEnvironment is the environment, repositories, project
	// layouts, rules, skills, subagents and hooks. Its id has no channel
	// name, as it had before there were channels.
	ContextEnvironment ContextChannel = ""
	// ContextMCP is the client's MCP servers and their tools.
	ContextMCP ContextChannel = "mcp"
	// ContextMode is the mode the user chose and what it allows.
	ContextMode ContextChannel = "mode"
	// ContextEditor is the editor's state: open files, the cursor,
	// recently viewed files.
	ContextEditor ContextChannel = "editor"
	// ContextFiles is the contents of the files open in the editor, apart
	// from the editor's state: a moved cursor must not send them again.
	ContextFiles ContextChannel = "files"
	// ContextMemories is the user's memories, kept by the server (the
	// client never sends them): they change on their own, rarely.
	ContextMemories ContextChannel = "memories"
)

// ContextChannels lists the channels in the order a turn appends them.
var ContextChannels = []ContextChannel{ContextEnvironment, ContextMCP, ContextMode, ContextEditor, ContextFiles, ContextMemories}

// ContextID is the id of channel ch's request-context message compiled for
// the turn-starting event eventID: request-context:<event> for the
// environment, request-context/<channel>:<event> for the others.
func ContextID(ch ContextChannel, eventID string) string {
	if ch == ContextEnvironment {
		return requestContextPrefix + ":" + eventID
	}
	return requestContextPrefix + "/" + string(ch) + ":" + eventID
}

// ContextOf returns the channel and event of a request-context message id,
// and whether id is one.
func ContextOf(id string) (ContextChannel, string, bool) {
	rest, ok := strings.CutPrefix(id, requestContextPrefix)
	if !ok {
		return "", "", false
	}
	if named, ok := strings.CutPrefix(rest, "/"); ok {
		ch, event, ok := strings.Cut(named, ":")
		if !ok || ch == "" || event == "" {
			return "", "", false
		}
		return ContextChannel(ch), event, true
	}
	event, ok := strings.CutPrefix(rest, ":")
	return ContextEnvironment, event, ok && event != ""
}

// RequestContextID is the id of the environment's request-context message
// compiled for the turn-starting event eventID.
func RequestContextID(eventID string) string { return ContextID(ContextEnvironment, eventID) }

// RequestContextEvent returns the event id of a request-context message id
// of any channel, and whether id is one.
func RequestContextEvent(id string) (string, bool) {
	_, event, ok := ContextOf(id)
	return event, ok
}

// RuntimeID is the id of the runtime (user-visible turn) message of eventID.
func RuntimeID(eventID string) string { return runtimePrefix + eventID }

// UserEventID is the event id of a user input: Cursor's stable input id plus
// a short hash of the rendered content, so an edited input becomes a new
// event while a resent one stays the same.
func UserEventID(stableInputID, rendered string) string {
	sum := sha256.Sum256([]byte(rendered))
	return "cursor:user:" + stableInputID + ":" + hex.EncodeToString(sum[:8])
}

// RunID names one execution started for a Cursor request id. nonce comes
// from the caller (the domain draws no randomness); a reused request id
// with a fresh nonce maps to a fresh run.
func RunID(cursorRequestID string, nonce uint32) string {
	return fmt.Sprintf("%s:%08x", cursorRequestID, nonce)
}

// AssistantID is the id of the final assistant message of a model cycle.
func AssistantID(runID string, providerCallIndex int) string {
	return runID + ":assistant:" + strconv.Itoa(providerCallIndex)
}

// ToolRoundID is the id of the tool round emitted by a model cycle.
func ToolRoundID(runID string, providerCallIndex int) string {
	return runID + ":round:" + strconv.Itoa(providerCallIndex)
}

// ResumedToolRoundID is the id of a pending round re-executed on resume.
func ResumedToolRoundID(runID string) string { return runID + ":round:resume" }

// ToolCallPartID is the id of the assistant part holding one call of a round.
func ToolCallPartID(roundID, callID string) string { return roundID + ":" + callID + ":assistant" }

// ToolResultID is the id of the result of one call of a round.
func ToolResultID(roundID, callID string) string { return roundID + ":" + callID + ":result" }

// ManualSummaryID is the id of the summary written by /summarize.
func ManualSummaryID(runID string) string { return runtimePrefix + "summary:" + runID }

// AutoSummaryID is the id of an automatic compaction summary.
func AutoSummaryID(runID string, providerCallIndex int) string {
	return runtimePrefix + "summary:auto:" + runID + ":" + strconv.Itoa(providerCallIndex)
}

// ProviderCallID names one provider attempt of a model cycle: retry 0 is the
// first attempt and has no suffix.
func ProviderCallID(runID string, providerCallIndex, retry int) string {
	id := runID + ":" + strconv.Itoa(providerCallIndex)
	if retry > 0 {
		id += ":retry-" + strconv.Itoa(retry)
	}
	return id
}

// AliasAttemptID extends a provider call id with the alias target attempt.
func AliasAttemptID(providerCallID string, attempt int) string {
	return providerCallID + ":alias:" + strconv.Itoa(attempt)
}
