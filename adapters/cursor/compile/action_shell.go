package compile

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"keygate/app/run"
	"keygate/domain/conversation"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// UserShell is what the client's shell returned for a command the user ran
// with "!" (a ShellCommandAction). The run layer has the client run the
// command before Compile and fills Input.Shell with it.
type UserShell struct {
	Command string
	Cwd     string
	Stdout  string
	Stderr  string
	// ExitCode is the command's exit status.
	ExitCode int32
	// Failure says why the command did not run to its end (rejected,
	// aborted, no shell); empty when it did.
	Failure string
}

// userShellLimit bounds the output the model sees of a user's command
// (head and tail kept): the user message is sent on every later call.
const userShellLimit = 32 << 10

// ShellCommandOf returns the command and exec id of a ShellCommandAction.
func ShellCommandOf(a *agentv1.ConversationAction) (command, execID string, ok bool) {
	sc := a.GetShellCommandAction()
	if sc == nil {
		return "", "", false
	}
	return sc.GetShellCommand().GetCommand(), sc.GetExecId(), true
}

// shellCommandAction records a command the user ran in their shell ("!"
// in the chat): the client ran it, and its output joins the conversation
// as a message the model sees from the next turn on. The model is not
// asked to answer it. During a run it opens the next run of the turn.
var shellCommandAction = &action{
	name:   "shell command",
	is:     func(a *agentv1.ConversationAction) bool { return a.GetShellCommandAction() != nil },
	during: DuringQueue,
	open: func(in Input, _ Mode) opening {
		cmd, execID, _ := ShellCommandOf(in.Action)
		sh := in.Shell
		if sh == nil {
			sh = &UserShell{Command: cmd, Failure: "the command was not run"}
		}
		text := userShellText(sh)
		stable := execID
		if stable == "" {
			stable = in.RequestID
		}
		event := conversation.UserEventID("shell:"+stable, text)
		return opening{kind: run.ActionRecord, eventID: event,
			input: &turn.Input{EventID: event, Trigger: turn.TriggerShellCommand, Runtime: textParts(text)},
			shell: &agentv1.ShellConversationTurn{ShellCommand: &agentv1.ShellCommand{Command: sh.Command},
				ShellOutput: &agentv1.ShellOutput{Stdout: sh.Stdout, Stderr: sh.Stderr, ExitCode: sh.ExitCode}}}
	},
}

func userShellText(sh *UserShell) string {
	var b strings.Builder
	b.WriteString("<user_shell_command>\nThe user ran this command in their own shell; you did not run it.\n")
	fmt.Fprintf(&b, "$ %s\n", sh.Command)
	if sh.Cwd != "" {
		fmt.Fprintf(&b, "Working directory: %s\n", sh.Cwd)
	}
	if sh.Failure != "" {
		fmt.Fprintf(&b, "The command did not complete: %s\n", sh.Failure)
	} else {
		fmt.Fprintf(&b, "Exit code: %d\n", sh.ExitCode)
	}
	if sh.Stdout != "" {
		b.WriteString("Stdout:\n" + clip(sh.Stdout, userShellLimit) + "\n")
	}
	if sh.Stderr != "" {
		b.WriteString("Stderr:\n" + clip(sh.Stderr, userShellLimit/4) + "\n")
	}
	b.WriteString("</user_shell_command>")
	return b.String()
}

// clip keeps the head and the tail of s within max bytes, on rune
// boundaries, saying how much was left out.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	head, tail := s[:max/2], s[len(s)-max/2:]
	for len(head) > 0 && !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return fmt.Sprintf("%s\n[... %d bytes left out ...]\n%s", head, len(s)-len(head)-len(tail), tail)
}
