package turn

import (
	"fmt"
	"strings"

	"keygate/domain/conversation"
)

// Limits of the memories channel: memories reach the model on every turn
// of their user, so what one turn carries is bounded whatever is stored.
const (
	// MemoriesLimit bounds the rendered memories, in bytes.
	MemoriesLimit = 16 << 10
	// MemoryLimit bounds one memory's title and knowledge, in bytes.
	MemoryLimit = 2 << 10
)

// Memory is one thing the user asked the Agent to remember (Cursor's
// memories), kept by the server: the client never sends it back.
type Memory struct {
	Title     string
	Knowledge string
}

// Memories are the user's memories in the order they were added. They are
// compiled into the memories channel's request-context message, appended
// only when they change, so the prompt stays a byte-stable prefix.
type Memories []Memory

// Compile renders the memories in their order, each cut at MemoryLimit
// and all of them at MemoriesLimit; the memories left out are counted.
// "" when there is none. The result depends only on m.
func (m Memories) Compile() string {
	if len(m) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Things the user asked you to remember across conversations (their memories). Follow them unless the user says otherwise in this conversation.")
	budget := MemoriesLimit - b.Len()
	for i, mem := range m {
		text := element("memory", attrs("title", cut(mem.Title, EditorLineLimit)), cut(mem.Knowledge, MemoryLimit))
		if len(text)+1 > budget {
			fmt.Fprintf(&b, "\n[%d more memories not shown]", len(m)-i)
			break
		}
		budget -= len(text) + 1
		b.WriteString("\n" + text)
	}
	return element("user_memories", "", b.String())
}

// NoMemories is the memories channel's text once the user has deleted
// every memory: it replaces the earlier list, which would otherwise stay
// the latest word on them.
const NoMemories = "<user_memories>\nThe user has no memories now; forget the ones listed earlier.\n</user_memories>"

// Context is the memories channel of a turn: the compiled memories, or,
// when there are none, NoMemories as a clearing context (appended only
// over an earlier list).
func (m Memories) Context() Context {
	if text := m.Compile(); text != "" {
		return Context{Channel: conversation.ContextMemories, Text: text}
	}
	return Context{Channel: conversation.ContextMemories, Text: NoMemories, Clears: true}
}
