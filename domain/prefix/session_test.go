package prefix_test

import (
	"fmt"

	. "github.com/onsi/gomega"

	"keygate/domain/compaction"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/projection"
	"keygate/domain/turn"
)

// session plays the run engine at domain level: each turn appends its
// initial messages through the append rules, projects a request from the
// head checkpoint and stores the model's answer. It records every request.
type session struct {
	log      *conversation.Log
	prompt   projection.Prompt
	settings projection.Settings
	requests []llm.Request
	runs     int
}

func newSession() *session {
	log, err := conversation.NewLog("conv-1")
	Expect(err).NotTo(HaveOccurred())
	return &session{
		log:      log,
		prompt:   projection.Prompt{Instructions: "You are Keygate's agent.", Tools: []llm.Tool{{Name: "Read", Parameters: []byte(`{"type":"object"}`)}}},
		settings: projection.Settings{Model: "m", CacheKey: projection.CacheKey("conv-1")},
	}
}

func (s *session) history() []conversation.Message {
	msgs, err := s.log.Messages(s.log.Head().ID())
	Expect(err).NotTo(HaveOccurred())
	return msgs
}

// start begins a new run: it appends the initial messages of in and
// returns them.
func (s *session) start(in turn.Input) []conversation.Message {
	s.runs++
	initial, err := turn.InitialMessages(s.history(), in)
	Expect(err).NotTo(HaveOccurred())
	if len(initial) > 0 {
		_, err = s.log.Apply(conversation.AppendTo(s.log.Head(), initial...))
		Expect(err).NotTo(HaveOccurred())
	}
	return initial
}

// call projects and records a request from the head.
func (s *session) call() llm.Request {
	req, err := projection.Request(s.history(), s.prompt, s.settings)
	Expect(err).NotTo(HaveOccurred())
	s.requests = append(s.requests, req)
	return req
}

// answer stores the model's final answer of the current run.
func (s *session) answer(text string) {
	m, err := conversation.NewMessage(conversation.MessageSpec{
		ID:   conversation.AssistantID(conversation.RunID(fmt.Sprintf("req-%d", s.runs), 0xabcdef01), 0),
		Role: llm.RoleAssistant, Origin: conversation.OriginAssistant, Assistant: &llm.Assistant{Text: text},
	})
	Expect(err).NotTo(HaveOccurred())
	_, err = s.log.Apply(conversation.AppendTo(s.log.Head(), m))
	Expect(err).NotTo(HaveOccurred())
}

// userTurn runs a whole user turn with the given compiled context.
func (s *session) userTurn(event, context, text string) llm.Request {
	s.start(turn.Input{EventID: event, Trigger: turn.TriggerUserMessage, Contexts: []turn.Context{{Text: context}},
		Runtime: turn.RuntimeParts(text, turn.Selection{})})
	req := s.call()
	s.answer("answer to " + text)
	return req
}

// compactAutomatically replaces the head with the automatic layout, keeping
// the current turn's initial messages.
func (s *session) compactAutomatically(current []conversation.Message) {
	var ids []string
	for _, m := range current {
		ids = append(ids, m.ID())
	}
	split := compaction.Partition(s.history(), ids)
	summary, err := compaction.SummaryMessage(conversation.AutoSummaryID("req-auto", 0), "what happened so far")
	Expect(err).NotTo(HaveOccurred())
	_, err = s.log.Apply(conversation.ReplaceWith(s.log.Head().ID(), s.log.Root(), compaction.Automatic(split, summary)...))
	Expect(err).NotTo(HaveOccurred())
}

func contextMessages(msgs []llm.Message) []string {
	var out []string
	for _, m := range msgs {
		if _, ok := conversation.RequestContextEvent(m.ID); ok {
			out = append(out, m.ID+"="+m.Parts[0].Text)
		}
	}
	return out
}
