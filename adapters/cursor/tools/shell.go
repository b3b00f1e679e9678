package tools

import (
	"fmt"
	"time"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// shellTool runs a command in the user's shell on the client. Its exec is a
// stream: output arrives as it comes and goes to the tool card live.
var shellTool = &tool{
	name:    "Shell",
	aliases: []string{"bash"},
	modes:   append(append([]string{}, editingModes...), modePlan),
	runs:    onClient,
	open:    func() handler { return &shell{} },
}

// shell is a Shell call: its output as it streamed and how long it ran.
type shell struct {
	// stdout and stderr collect the streams for the model; interleaved is
	// both in the order they arrived, for the card.
	stdout, stderr, interleaved []byte
	// sent is when the exec went out, started when the client said the
	// command started.
	sent, started time.Time
}

// Shell limits the client is given: output above the threshold goes to a
// file instead of the stream, a command still running after block_until_ms
// moves to the background, and a day is the hard limit.
const (
	shellFileThreshold = 40000
	shellHardTimeoutMs = 86400000
)

func (sh *shell) start(c *call) (Action, error) {
	cmd, err := c.required("command")
	if err != nil {
		return Action{}, err
	}
	if _, ok := c.args["command"].(string); !ok {
		return Action{}, fmt.Errorf("%s: argument %q must be a string", c.name, "command")
	}
	block, hasBlock := c.num("block_until_ms")
	if hasBlock && block < 0 {
		return Action{}, fmt.Errorf("%s: block_until_ms must not be negative", c.name)
	}
	threshold := uint64(shellFileThreshold)
	hard := int32(shellHardTimeoutMs)
	parse := parseShell(cmd)
	args := &agentv1.ShellArgs{
		Command: cmd, WorkingDirectory: c.str("working_directory"), ToolCallId: c.id,
		SimpleCommands: parse.simple, HasInputRedirect: parse.input, HasOutputRedirect: parse.output, ParsingResult: parse.result,
		FileOutputThresholdBytes: &threshold, TimeoutBehavior: agentv1.TimeoutBehavior_TIMEOUT_BEHAVIOR_BACKGROUND,
		HardTimeout: &hard, Description: optStr(c.str("description")), CloseStdin: true,
		ConversationId: optStr(c.env.ConversationID),
	}
	sh.sent = c.env.Now()
	if hasBlock {
		args.Timeout = int32(block)
	}
	c.card.Tool = &agentv1.ToolCall_ShellToolCall{ShellToolCall: &agentv1.ShellToolCall{Args: args, Description: args.Description}}
	return c.exec(func(m *agentv1.ExecServerMessage) {
		m.Message = &agentv1.ExecServerMessage_ShellStreamArgs{ShellStreamArgs: args}
	}), nil
}

// onExec consumes one shell_stream event: output becomes a live delta,
// exit (or a refusal) completes the call.
func (sh *shell) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	if r := m.GetShellResult(); r != nil { // a client that answers in one message
		c.card.GetShellToolCall().Result = r
		if s := r.GetSuccess(); s != nil {
			return finish(shellText(s.GetExitCode(), s.GetStdout(), s.GetStderr()), false)
		}
		return fail(describe("shell", r))
	}
	ev := m.GetShellStream()
	if ev == nil {
		return Action{}
	}
	switch e := ev.GetEvent().(type) {
	case *agentv1.ShellStream_Start:
		sh.started = c.env.Now()
	case *agentv1.ShellStream_Stdout:
		sh.stdout = append(sh.stdout, e.Stdout.GetData()...)
		sh.interleaved = append(sh.interleaved, e.Stdout.GetData()...)
		return Action{Delta: &agentv1.ToolCallDelta{Delta: &agentv1.ToolCallDelta_ShellToolCallDelta{ShellToolCallDelta: &agentv1.ShellToolCallDelta{
			Delta: &agentv1.ShellToolCallDelta_Stdout{Stdout: &agentv1.ShellToolCallStdoutDelta{Content: e.Stdout.GetData()}}}}}}
	case *agentv1.ShellStream_Stderr:
		sh.stderr = append(sh.stderr, e.Stderr.GetData()...)
		sh.interleaved = append(sh.interleaved, e.Stderr.GetData()...)
		return Action{Delta: &agentv1.ToolCallDelta{Delta: &agentv1.ToolCallDelta_ShellToolCallDelta{ShellToolCallDelta: &agentv1.ShellToolCallDelta{
			Delta: &agentv1.ShellToolCallDelta_Stderr{Stderr: &agentv1.ShellToolCallStderrDelta{Content: e.Stderr.GetData()}}}}}}
	case *agentv1.ShellStream_Exit:
		return sh.exit(c, e.Exit)
	case *agentv1.ShellStream_Rejected:
		c.card.GetShellToolCall().Result = &agentv1.ShellResult{Result: &agentv1.ShellResult_Rejected{Rejected: e.Rejected}}
		return fail("the user rejected the command")
	case *agentv1.ShellStream_PermissionDenied:
		c.card.GetShellToolCall().Result = &agentv1.ShellResult{Result: &agentv1.ShellResult_PermissionDenied{PermissionDenied: e.PermissionDenied}}
		return fail("permission denied for the command")
	case *agentv1.ShellStream_Backgrounded:
		return finish("The command moved to the background.\n"+shellText(0, string(sh.stdout), string(sh.stderr)), false)
	}
	return Action{}
}

// onStreamClose fails a shell whose stream closed before its exit event.
func (*shell) onStreamClose(*call) Action {
	return fail("the shell stream closed before the command exited")
}

// exit completes the call with the result the client's card shows:
// both streams and their interleaving, the exit code, and how long the
// command ran (measured here from the client's start event, or from the
// exec when it sent none; the client's own measure when it gave one).
func (sh *shell) exit(c *call, e *agentv1.ShellStreamExit) Action {
	tc := c.card.GetShellToolCall()
	cmd, wd := tc.GetArgs().GetCommand(), e.GetCwd()
	if wd == "" {
		wd = tc.GetArgs().GetWorkingDirectory()
	}
	out, errOut := string(sh.stdout), string(sh.stderr)
	interleaved := string(sh.interleaved)
	begin := sh.started
	if begin.IsZero() {
		begin = sh.sent
	}
	elapsed := int32(c.env.Now().Sub(begin).Milliseconds())
	if e.GetCode() == 0 && !e.GetAborted() {
		tc.Result = &agentv1.ShellResult{Result: &agentv1.ShellResult_Success{Success: &agentv1.ShellSuccess{
			Command: cmd, WorkingDirectory: wd, Stdout: out, Stderr: errOut, InterleavedOutput: &interleaved,
			ExecutionTime: elapsed, LocalExecutionTimeMs: e.LocalExecutionTimeMs, OutputLocation: e.GetOutputLocation()}}}
		return finish(shellText(0, out, errOut), false)
	}
	tc.Result = &agentv1.ShellResult{Result: &agentv1.ShellResult_Failure{Failure: &agentv1.ShellFailure{
		Command: cmd, WorkingDirectory: wd, ExitCode: int32(e.GetCode()), Stdout: out, Stderr: errOut, InterleavedOutput: &interleaved,
		ExecutionTime: elapsed, LocalExecutionTimeMs: e.LocalExecutionTimeMs, OutputLocation: e.GetOutputLocation(),
		Aborted: e.GetAborted(), AbortReason: e.AbortReason}}}
	// A non-zero exit is information for the model, not a tool failure.
	return finish(shellText(int32(e.GetCode()), out, errOut), false)
}

func shellText(code int32, stdout, stderr string) string {
	s := fmt.Sprintf("Exit code: %d\n", code)
	if stdout != "" {
		s += "Stdout:\n" + stdout
	}
	if stderr != "" {
		s += "\nStderr:\n" + stderr
	}
	return s
}
