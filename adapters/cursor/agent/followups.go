package agent

import agentv1 "keygate/gen/cursor/agent/v1"

// injection is a user message that arrived while a run worked: queued by
// the client as context (id set) or sent as a new user message (no id).
// action, when set, is another conversation action that opens the next run
// (a shell command, a plan to start or carry out, a compaction).
type injection struct {
	id     string
	user   *agentv1.UserMessage
	action *agentv1.ConversationAction
}

// followUps is the turn's queue of user messages that arrive while a run
// works, so that none is lost. A message the run takes (it interrupts the
// running round) is kept by its runtime event id until the run commits it,
// when the client is told it was delivered. A message that misses the run
// (it arrived while the run committed its final turn, or after) waits in
// pending and opens the next run of the same turn; opening is the one that
// opened the current run. Each injection id counts once. It holds state
// only: the turn sends what it means for the client.
type followUps struct {
	inRun   map[string]injection
	seen    map[string]bool
	opening *injection
	pending []injection
}

func newFollowUps() *followUps {
	return &followUps{inRun: map[string]injection{}, seen: map[string]bool{}}
}

// firstSight reports whether injection id is new, and marks it seen.
func (f *followUps) firstSight(id string) bool {
	if f.seen[id] {
		return false
	}
	f.seen[id] = true
	return true
}

// taken notes that the run took the message of event.
func (f *followUps) taken(event string, in injection) { f.inRun[event] = in }

// missed queues a message the run was given but did not take (it was
// closing) for the next run.
func (f *followUps) missed(event string, in injection) {
	delete(f.inRun, event)
	f.later(in)
}

// later queues a message for the next run.
func (f *followUps) later(in injection) { f.pending = append(f.pending, in) }

// committed returns the injection the run committed as event, if any.
func (f *followUps) committed(event string) (injection, bool) {
	in, ok := f.inRun[event]
	delete(f.inRun, event)
	return in, ok
}

// waiting reports whether a message waits for the next run.
func (f *followUps) waiting() bool { return len(f.pending) > 0 }

// next takes the first waiting message as the one opening the next run.
func (f *followUps) next() injection {
	in := f.pending[0]
	f.pending = f.pending[1:]
	f.opening = &in
	return in
}
