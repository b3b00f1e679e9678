package checkpoint

import (
	"time"

	"google.golang.org/protobuf/proto"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// Subagents is what a checkpoint records of the conversation's subagents:
// each subagent's state by agent id (subagent_states) and each Task's run
// by its tool call id (subagent_runs_by_parent_tool_call_id), so the client
// shows running and backgrounded subagents and can resume one. The turn's
// changes are kept over the client's state (Base); entries the turn does
// not touch are carried over as the client sent them. A nil *Subagents
// records nothing.
type Subagents struct {
	// Base is the client's state the turn started from.
	Base   *agentv1.ConversationStateStructure
	states map[string]*agentv1.SubagentPersistedState
	runs   map[string]*agentv1.SubagentRunState
}

// Task records a Task's card: its run while it works, and once the client
// names its subagent, that subagent's state (created now, or last used now
// when it is resumed).
func (s *Subagents) Task(card *agentv1.ToolCall, now time.Time) {
	tc := card.GetTaskToolCall()
	if s == nil || tc == nil {
		return
	}
	s.init()
	callID := card.GetToolCallId()
	ms := uint64(now.UnixMilli())
	run := s.run(callID)
	run.ParentToolCallId = callID
	run.Environment = agentv1.SubagentExecutionEnvironment_SUBAGENT_EXECUTION_ENVIRONMENT_LOCAL
	if d := tc.GetArgs().GetDescription(); d != "" {
		run.Title = &d
	}
	run.Status = agentv1.SubagentRunStatus_SUBAGENT_RUN_STATUS_RUNNING
	switch r := tc.GetResult().GetResult().(type) {
	case *agentv1.TaskResult_Success:
		id := r.Success.GetAgentId()
		run.SubagentId, run.TranscriptPath = &id, r.Success.TranscriptPath
		run.Status = agentv1.SubagentRunStatus_SUBAGENT_RUN_STATUS_SUCCESS
		if r.Success.GetIsBackground() {
			run.Status = agentv1.SubagentRunStatus_SUBAGENT_RUN_STATUS_BACKGROUNDED
		} else {
			run.CompletedTimestampMs = &ms
		}
		if id != "" {
			st := s.state(id)
			if st.CreatedTimestampMs == 0 {
				st.CreatedTimestampMs = ms
			}
			st.LastUsedTimestampMs = ms
			st.SubagentType = tc.GetArgs().GetSubagentType()
			st.ModelId = tc.GetArgs().Model
			st.Environment = agentv1.SubagentExecutionEnvironment_SUBAGENT_EXECUTION_ENVIRONMENT_LOCAL
		}
	case *agentv1.TaskResult_Error:
		run.Status = agentv1.SubagentRunStatus_SUBAGENT_RUN_STATUS_ERROR
		d := r.Error.GetError()
		run.Detail, run.CompletedTimestampMs = &d, &ms
	case nil:
		if card.CompletedAtMs != nil { // completed without a result: aborted
			run.Status = agentv1.SubagentRunStatus_SUBAGENT_RUN_STATUS_ABORTED
			run.CompletedTimestampMs = &ms
		}
	}
}

// Completed records a background subagent's end the client reported.
func (s *Subagents) Completed(c *agentv1.BackgroundTaskCompletion, now time.Time) {
	if s == nil || c.GetKind() != agentv1.BackgroundTaskKind_BACKGROUND_TASK_KIND_SUBAGENT {
		return
	}
	s.init()
	callID := c.GetToolCallId()
	if callID == "" {
		agent := c.GetSubagentId()
		if agent == "" {
			agent = c.GetTaskId()
		}
		for id, r := range s.all() {
			if r.GetSubagentId() == agent {
				callID = id
			}
		}
	}
	if callID == "" {
		return
	}
	run := s.run(callID)
	ms := uint64(now.UnixMilli())
	run.CompletedTimestampMs = &ms
	run.CompletionReason = c.Reason.Enum()
	run.OutputPath, run.Detail = c.OutputPath, c.Detail
	switch c.GetStatus() {
	case agentv1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_SUCCESS:
		run.Status = agentv1.SubagentRunStatus_SUBAGENT_RUN_STATUS_SUCCESS
	case agentv1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_ABORTED:
		run.Status = agentv1.SubagentRunStatus_SUBAGENT_RUN_STATUS_ABORTED
	default:
		run.Status = agentv1.SubagentRunStatus_SUBAGENT_RUN_STATUS_ERROR
	}
}

// IDs returns the ids of the conversation's subagents.
func (s *Subagents) IDs() []string {
	if s == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	for id := range s.Base.GetSubagentStates() {
		add(id)
	}
	for id := range s.states {
		add(id)
	}
	for _, r := range s.all() {
		add(r.GetSubagentId())
	}
	return out
}

func (s *Subagents) init() {
	if s.states == nil {
		s.states, s.runs = map[string]*agentv1.SubagentPersistedState{}, map[string]*agentv1.SubagentRunState{}
	}
}

// run is the turn's copy of a Task's run state.
func (s *Subagents) run(callID string) *agentv1.SubagentRunState {
	if r, ok := s.runs[callID]; ok {
		return r
	}
	r := &agentv1.SubagentRunState{}
	if b, ok := s.Base.GetSubagentRunsByParentToolCallId()[callID]; ok {
		r = proto.Clone(b).(*agentv1.SubagentRunState)
	}
	s.runs[callID] = r
	return r
}

// state is the turn's copy of a subagent's state.
func (s *Subagents) state(id string) *agentv1.SubagentPersistedState {
	if st, ok := s.states[id]; ok {
		return st
	}
	st := &agentv1.SubagentPersistedState{}
	if b, ok := s.Base.GetSubagentStates()[id]; ok {
		st = proto.Clone(b).(*agentv1.SubagentPersistedState)
	}
	s.states[id] = st
	return st
}

// all is every Task run, the turn's over the client's.
func (s *Subagents) all() map[string]*agentv1.SubagentRunState {
	out := map[string]*agentv1.SubagentRunState{}
	for id, r := range s.Base.GetSubagentRunsByParentToolCallId() {
		out[id] = r
	}
	for id, r := range s.runs {
		out[id] = r
	}
	return out
}

// apply writes the turn's entries into st.
func (s *Subagents) apply(st *agentv1.ConversationStateStructure) {
	if s == nil || len(s.states)+len(s.runs) == 0 {
		return
	}
	if st.SubagentStates == nil {
		st.SubagentStates = map[string]*agentv1.SubagentPersistedState{}
	}
	for id, v := range s.states {
		st.SubagentStates[id] = proto.Clone(v).(*agentv1.SubagentPersistedState)
	}
	if st.SubagentRunsByParentToolCallId == nil {
		st.SubagentRunsByParentToolCallId = map[string]*agentv1.SubagentRunState{}
	}
	for id, v := range s.runs {
		st.SubagentRunsByParentToolCallId[id] = proto.Clone(v).(*agentv1.SubagentRunState)
	}
}
