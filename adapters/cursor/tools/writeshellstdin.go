package tools

import (
	"fmt"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// writeShellStdinTool types into a background shell's input on the client
// (an interactive prompt, a REPL).
var writeShellStdinTool = &tool{
	name:  "WriteShellStdin",
	modes: append(append([]string{}, editingModes...), modePlan),
	runs:  onClient,
	open:  func() handler { return new(writeShellStdin) },
}

// writeShellStdin handles one WriteShellStdin call; it keeps nothing between steps (the card holds
// what a later step reads).
type writeShellStdin struct{}

func (*writeShellStdin) start(c *call) (Action, error) {
	id, ok := c.num("shell_id")
	if !ok || id < 0 {
		return Action{}, c.missing("shell_id")
	}
	chars, ok := c.args["chars"].(string)
	if !ok {
		return Action{}, c.missing("chars")
	}
	args := &agentv1.WriteShellStdinArgs{ShellId: uint32(id), Chars: chars}
	c.card.Tool = &agentv1.ToolCall_WriteShellStdinToolCall{WriteShellStdinToolCall: &agentv1.WriteShellStdinToolCall{Args: args}}
	return c.exec(func(m *agentv1.ExecServerMessage) {
		m.Message = &agentv1.ExecServerMessage_WriteShellStdinArgs{WriteShellStdinArgs: args}
	}), nil
}

func (*writeShellStdin) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	r := m.GetWriteShellStdinResult()
	if r == nil {
		return c.unexpected(m)
	}
	c.card.GetWriteShellStdinToolCall().Result = r
	if s := r.GetSuccess(); s != nil {
		return finish(fmt.Sprintf("Wrote %d characters to shell %d. Its output goes on in its terminal file (from byte %d on).",
			len([]rune(c.card.GetWriteShellStdinToolCall().GetArgs().GetChars())), s.GetShellId(), s.GetTerminalFileLengthBeforeInputWritten()), false)
	}
	return fail("writing to the shell failed: " + r.GetError().GetError())
}
