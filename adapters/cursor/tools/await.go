package tools

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// awaitTool waits for a background task: a subagent (the client waits,
// subagent_await_args) or a background shell (the server waits until the
// client reports the shell finished, or the time is up).
var awaitTool = &tool{
	name:   "Await",
	modes:  []string{modeAgent, modeDebug, modeMultitask, modePlan, modeSubagent},
	runs:   onClient,
	open:   func() handler { return new(await) },
	awaits: true,
}

// await handles one Await call; it keeps nothing between steps (the card holds
// what a later step reads).
type await struct{}

// Await bounds: the wait when the model names none, and the longest.
const (
	awaitDefault = 30 * time.Second
	awaitMax     = 10 * time.Minute
)

func (*await) start(c *call) (Action, error) {
	id, err := c.required("task_id")
	if err != nil {
		return Action{}, err
	}
	wait := awaitDefault
	if ms, ok := c.num("block_until_ms"); ok && ms >= 0 {
		wait = min(time.Duration(ms)*time.Millisecond, awaitMax)
	}
	args := &agentv1.AwaitArgs{TaskId: id, Regex: optStr(c.str("regex"))}
	ms := uint32(wait.Milliseconds())
	args.BlockUntilMs = &ms
	if args.Regex != nil {
		if _, err := regexp.Compile(args.GetRegex()); err != nil {
			return Action{}, fmt.Errorf("%s: regex: %w", c.name, err)
		}
	}
	c.card.Tool = &agentv1.ToolCall_AwaitToolCall{AwaitToolCall: &agentv1.AwaitToolCall{Args: args}}
	if slices.Contains(c.env.Subagents, id) {
		accept := false
		return Action{Exec: &agentv1.ExecServerMessage{ExecId: c.id, AcceptHookAdditionalContexts: &accept,
			Message: &agentv1.ExecServerMessage_SubagentAwaitArgs{SubagentAwaitArgs: &agentv1.SubagentAwaitArgs{AgentId: id, TimeoutMs: ms}}}}, nil
	}
	return Action{Await: &Await{TaskID: id, For: wait}}, nil
}

// onExec completes a wait for a subagent with the client's answer.
func (w *await) onExec(c *call, m *agentv1.ExecClientMessage) Action {
	r := m.GetSubagentAwaitResult()
	if r == nil {
		return c.unexpected(m)
	}
	tc := c.card.GetAwaitToolCall()
	id := tc.GetArgs().GetTaskId()
	switch x := r.GetResult().(type) {
	case *agentv1.SubagentAwaitResult_Complete:
		tc.Result = &agentv1.AwaitResult{Result: &agentv1.AwaitResult_Success{Success: &agentv1.AwaitSuccess{
			AwaitResult: &agentv1.AwaitSuccess_Complete{Complete: &agentv1.AwaitTaskComplete{TaskId: id,
				OutputFilePath: x.Complete.GetTranscriptPath()}}}}}
		return finish(fmt.Sprintf("Subagent %s finished.\n\n%s", id, x.Complete.GetFinalMessage()), false)
	case *agentv1.SubagentAwaitResult_StillRunning:
		tc.Result = &agentv1.AwaitResult{Result: &agentv1.AwaitResult_Success{Success: &agentv1.AwaitSuccess{
			AwaitResult: &agentv1.AwaitSuccess_StillRunning{StillRunning: &agentv1.AwaitTaskStillRunning{TaskId: id,
				OutputFilePath: x.StillRunning.GetTranscriptPath()}}}}}
		return finish(fmt.Sprintf("Subagent %s is still running after %d ms.", id, tc.GetArgs().GetBlockUntilMs()), false)
	case *agentv1.SubagentAwaitResult_NotFound:
		return w.failed(c, "no subagent "+id)
	}
	return w.failed(c, describe("await", r))
}

// onTask completes a wait for a background shell: its completion, or
// nil when the time is up.
func (*await) onTask(c *call, done *agentv1.BackgroundTaskCompletion) Action {
	tc := c.card.GetAwaitToolCall()
	a := tc.GetArgs()
	if done == nil {
		tc.Result = &agentv1.AwaitResult{Result: &agentv1.AwaitResult_Success{Success: &agentv1.AwaitSuccess{
			AwaitResult: &agentv1.AwaitSuccess_StillRunning{StillRunning: &agentv1.AwaitTaskStillRunning{TaskId: a.GetTaskId(),
				RuntimeMs: uint64(a.GetBlockUntilMs()), RegexRequested: a.Regex != nil}}}}}
		return finish(fmt.Sprintf("Task %s is still running after %d ms.", a.GetTaskId(), a.GetBlockUntilMs()), false)
	}
	complete := &agentv1.AwaitTaskComplete{TaskId: a.GetTaskId(), OutputFilePath: done.GetOutputPath(), RegexRequested: a.Regex != nil}
	if a.Regex != nil {
		if m := regexp.MustCompile(a.GetRegex()).FindString(done.GetDetail()); m != "" {
			complete.RegexMatch = &m
		}
	}
	tc.Result = &agentv1.AwaitResult{Result: &agentv1.AwaitResult_Success{Success: &agentv1.AwaitSuccess{
		AwaitResult: &agentv1.AwaitSuccess_Complete{Complete: complete}}}}
	status := strings.ToLower(strings.TrimPrefix(done.GetStatus().String(), "BACKGROUND_TASK_STATUS_"))
	text := fmt.Sprintf("Task %s finished (%s).", a.GetTaskId(), status)
	if done.GetOutputPath() != "" {
		text += " Its output is in " + done.GetOutputPath() + "."
	}
	if done.GetDetail() != "" {
		text += "\n\n" + done.GetDetail()
	}
	return finish(text, false)
}

func (*await) failed(c *call, msg string) Action {
	c.card.GetAwaitToolCall().Result = &agentv1.AwaitResult{Result: &agentv1.AwaitResult_Error{Error: &agentv1.AwaitError{Error: msg}}}
	return fail(msg)
}
