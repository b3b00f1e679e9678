package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"keygate/adapters/cursor/compile"
	"keygate/adapters/cursor/output"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// userShellKeep bounds what is kept of each stream of a user's command:
// beyond it the earliest output is dropped, since the end of a command's
// output says most about how it went.
const userShellKeep = 1 << 20

// userShell runs a command the user typed with "!" on the client (a shell
// stream exec with the action's exec id), mirrors its output to the
// client's shell turn (shell_output_delta) and returns what it printed. A
// cancel aborts it and ends the turn; other client messages wait for the
// run.
func (s *session) userShell(ctx context.Context, cmd, execID string) (*compile.UserShell, error) {
	id, err := s.wire.execID()
	if err != nil {
		return nil, fmt.Errorf("run the user's command: %w", err)
	}
	if execID == "" {
		execID = fmt.Sprintf("%s:shell:%d", s.turn.RequestID, id)
	}
	conv := s.convID
	args := &agentv1.ShellArgs{Command: cmd, ToolCallId: execID, CloseStdin: true, ConversationId: &conv,
		TimeoutBehavior: agentv1.TimeoutBehavior_TIMEOUT_BEHAVIOR_CANCEL}
	if err := s.wire.send(output.Exec(id, &agentv1.ExecServerMessage{ExecId: execID,
		Message: &agentv1.ExecServerMessage_ShellStreamArgs{ShellStreamArgs: args}})); err != nil {
		return nil, err
	}
	run := &userCommand{out: &compile.UserShell{Command: cmd}}
	for {
		select {
		case m := <-s.inbox.msgs:
			if kv := m.GetKvClientMessage(); kv != nil && s.blobs.file(kv) {
				s.blobs.onReply()
				continue
			}
			if m.GetConversationAction().GetCancelAction() != nil {
				s.wire.emit(output.Abort(id))
				return nil, classify(errRunCancelled, errors.New("the user cancelled the command"))
			}
			if !run.take(m, id) {
				s.backlog = append(s.backlog, m)
				continue
			}
			for _, ev := range run.mirror {
				s.wire.emit(shellOutput(ev))
			}
			run.mirror = run.mirror[:0]
			if run.done {
				return run.result(), nil
			}
		case <-s.inbox.broken:
			return nil, fmt.Errorf("run the user's command: %w", s.inbox.err)
		case <-s.wire.lost:
			return nil, s.wire.failed()
		case <-ctx.Done():
			s.wire.emit(output.Abort(id))
			return nil, context.Cause(ctx)
		}
	}
}

// userCommand collects a user's command's stream.
type userCommand struct {
	out            *compile.UserShell
	stdout, stderr []byte
	// dropped says earlier output was dropped to stay within the bound.
	dropped bool
	done    bool
	// mirror holds the events to show the client.
	mirror []*agentv1.ShellOutputDeltaUpdate
}

// take consumes m if it is about the exec id; false leaves it to the run.
func (u *userCommand) take(m *agentv1.AgentClientMessage, id uint32) bool {
	if c := m.GetExecClientControlMessage(); c != nil {
		switch {
		case c.GetThrow() != nil && c.GetThrow().GetId() == id:
			u.fail("the client could not run it: " + c.GetThrow().GetError())
		case c.GetStreamClose() != nil && c.GetStreamClose().GetId() == id:
			if !u.done {
				u.fail("its output closed before it exited")
			}
		default:
			return false
		}
		return true
	}
	e := m.GetExecClientMessage()
	if e == nil || e.GetId() != id {
		return false
	}
	if r := e.GetShellResult(); r != nil { // a client that answers in one message
		s := r.GetSuccess()
		f := r.GetFailure()
		switch {
		case s != nil:
			u.stdout, u.stderr, u.out.ExitCode, u.out.Cwd = []byte(s.GetStdout()), []byte(s.GetStderr()), s.GetExitCode(), s.GetWorkingDirectory()
		case f != nil:
			u.stdout, u.stderr, u.out.ExitCode, u.out.Cwd = []byte(f.GetStdout()), []byte(f.GetStderr()), f.GetExitCode(), f.GetWorkingDirectory()
		default:
			u.fail(fmt.Sprintf("the client did not run it (%T)", r.GetResult()))
		}
		u.done = true
		return true
	}
	switch ev := e.GetShellStream().GetEvent().(type) {
	case *agentv1.ShellStream_Start:
		u.mirror = append(u.mirror, &agentv1.ShellOutputDeltaUpdate{Event: &agentv1.ShellOutputDeltaUpdate_Start{Start: ev.Start}})
	case *agentv1.ShellStream_Stdout:
		u.stdout = u.keep(u.stdout, ev.Stdout.GetData())
		u.mirror = append(u.mirror, &agentv1.ShellOutputDeltaUpdate{Event: &agentv1.ShellOutputDeltaUpdate_Stdout{Stdout: ev.Stdout}})
	case *agentv1.ShellStream_Stderr:
		u.stderr = u.keep(u.stderr, ev.Stderr.GetData())
		u.mirror = append(u.mirror, &agentv1.ShellOutputDeltaUpdate{Event: &agentv1.ShellOutputDeltaUpdate_Stderr{Stderr: ev.Stderr}})
	case *agentv1.ShellStream_Exit:
		u.out.ExitCode, u.out.Cwd = int32(ev.Exit.GetCode()), ev.Exit.GetCwd()
		if ev.Exit.GetAborted() {
			u.fail("it was aborted")
		}
		u.done = true
		u.mirror = append(u.mirror, &agentv1.ShellOutputDeltaUpdate{Event: &agentv1.ShellOutputDeltaUpdate_Exit{Exit: ev.Exit}})
	case *agentv1.ShellStream_Rejected:
		u.fail("it was rejected: " + ev.Rejected.GetReason())
	case *agentv1.ShellStream_PermissionDenied:
		u.fail("permission denied: " + ev.PermissionDenied.GetError())
	case *agentv1.ShellStream_Backgrounded:
		u.fail("it moved to the background")
	}
	return true
}

// keep appends data to buf, dropping the earliest output beyond the bound.
func (u *userCommand) keep(buf []byte, data string) []byte {
	buf = append(buf, data...)
	if len(buf) > userShellKeep {
		buf = append([]byte(nil), buf[len(buf)-userShellKeep/2:]...)
		u.dropped = true
	}
	return buf
}

func (u *userCommand) fail(why string) {
	if u.out.Failure == "" {
		u.out.Failure = why
	}
	u.done = true
}

func (u *userCommand) result() *compile.UserShell {
	// A dropped head may cut a character; the message must be valid text.
	u.out.Stdout, u.out.Stderr = strings.ToValidUTF8(string(u.stdout), ""), strings.ToValidUTF8(string(u.stderr), "")
	if u.dropped {
		u.out.Stdout = "[earlier output dropped]\n" + u.out.Stdout
	}
	return u.out
}

// shellOutput mirrors a user command's stream event to the client.
func shellOutput(ev *agentv1.ShellOutputDeltaUpdate) *agentv1.AgentServerMessage {
	return &agentv1.AgentServerMessage{Message: &agentv1.AgentServerMessage_InteractionUpdate{InteractionUpdate: &agentv1.InteractionUpdate{
		Message: &agentv1.InteractionUpdate_ShellOutputDelta{ShellOutputDelta: ev}}}}
}
