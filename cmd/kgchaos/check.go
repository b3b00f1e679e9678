package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"

	"keygate/adapters/postgres"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/ports"
)

// findings are the invariants checked on one side (the store, or the
// clients' checkpoints), counted in messages.
type findings struct {
	// Lost: a message of a turn the client saw complete (its user message,
	// a tool call or result of its rounds, its answer) is missing.
	Lost int
	// Duplicated: a message of any turn is there more than once.
	Duplicated int
	// Conversations checked, and those the side did not have at all.
	Conversations, Missing int
	// Examples names a few findings, for the report.
	Examples []string
}

func (f *findings) example(s string) {
	if len(f.Examples) < 16 {
		f.Examples = append(f.Examples, s)
	}
}

// counts tallies one conversation's messages by what they belong to.
type counts struct {
	users          map[int]int
	calls, results map[string]int
}

func count(msgs []conversation.Message) counts {
	c := counts{users: map[int]int{}, calls: map[string]int{}, results: map[string]int{}}
	for _, m := range msgs {
		switch m.Role() {
		case llm.RoleUser:
			seen := map[int]bool{}
			for _, hit := range marker.FindAllStringSubmatch(m.Text(), -1) {
				n, _ := strconv.Atoi(hit[2])
				if !seen[n] {
					seen[n] = true
					c.users[n]++
				}
			}
		case llm.RoleAssistant:
			a, _ := m.Assistant()
			for _, call := range a.Calls {
				c.calls[call.CallID]++
			}
		case llm.RoleTool:
			if r, ok := m.ToolResult(); ok {
				c.results[r.CallID]++
			}
		}
	}
	return c
}

// judge compares one conversation's messages with what its client saw,
// and returns their counts.
func judge(f *findings, conv *convRecord, msgs []conversation.Message, side string) counts {
	c := count(msgs)
	text := map[int]int{}
	for _, m := range msgs {
		if m.Role() != llm.RoleAssistant {
			continue
		}
		a, _ := m.Assistant()
		for _, t := range conv.turns {
			if a.Text == answerText(conv.id, t.n) || m.Text() == answerText(conv.id, t.n) {
				text[t.n]++
			}
		}
	}
	type part struct {
		what string
		n    int
	}
	for _, t := range conv.turns {
		want := []part{{"user message", c.users[t.n]}, {"answer", text[t.n]}}
		for r := range rounds(t.n) {
			id := callID(conv.id, t.n, r)
			want = append(want, part{"tool call " + id, c.calls[id]}, part{"tool result " + id, c.results[id]})
		}
		for _, w := range want {
			switch {
			case w.n > 1:
				f.Duplicated += w.n - 1
				f.example(fmt.Sprintf("%s: %s t%d: %s %d times", side, conv.id, t.n, w.what, w.n))
			case w.n == 0 && t.completed:
				f.Lost++
				f.example(fmt.Sprintf("%s: %s t%d (completed): %s missing", side, conv.id, t.n, w.what))
			}
		}
	}
	return c
}

// checkStore reads every conversation the clients ran from PostgreSQL, as
// stored at its head, and judges it.
func checkStore(ctx context.Context, dsn string, convs []*convRecord, prov *provider) (findings, error) {
	var f findings
	db, err := postgres.Open(ctx, dsn, zap.NewNop())
	if err != nil {
		return f, fmt.Errorf("open the replicas' database: %w", err)
	}
	defer db.Close()
	// The store's ports read a conversation's head; where a lost turn went
	// needs a look at every message of the conversation.
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return f, fmt.Errorf("connect to the replicas' database: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	store := postgres.NewStore(db).Stores().Conversations
	for _, conv := range convs {
		if len(conv.turns) == 0 {
			continue
		}
		f.Conversations++
		head, err := store.Head(ctx, conv.id)
		if errors.Is(err, ports.ErrNotFound) {
			f.Missing++
			judge(&f, conv, nil, "store")
			continue
		}
		if err != nil {
			return f, fmt.Errorf("head of %s: %w", conv.id, err)
		}
		_, msgs, err := store.Load(ctx, head.ID())
		if err != nil {
			return f, fmt.Errorf("load %s: %w", conv.id, err)
		}
		users := judge(&f, conv, msgs, "store").users
		for _, t := range conv.turns {
			if t.completed && users[t.n] == 0 {
				f.example(explainLost(ctx, conn, conv.id, t, prov))
			}
		}
	}
	return f, nil
}

// explainLost says where a completed turn that the head lacks went: its
// user message stored off the head's branch, or never; what broke the
// turn on the client's side; how many calls the provider saw for it.
func explainLost(ctx context.Context, conn *pgx.Conn, conv string, t *turnRecord, prov *provider) string {
	where := "unknown"
	var n int
	needle := fmt.Sprintf("kgchaos turn %s t%d:", conv, t.n)
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM messages WHERE conversation_id = $1 AND position($2::bytea in body) > 0`,
		conv, []byte(needle)).Scan(&n); err == nil {
		where = fmt.Sprintf("its user message is stored %d times, none on the head's branch", n)
		if n == 0 {
			where = "its user message was never stored"
		}
	}
	_, calls := prov.providerTime(conv, t.n)
	return fmt.Sprintf("store: %s t%d completed for the client but is not on the head: %s; %d provider calls; the client's failures: %s",
		conv, t.n, where, calls, brokenBy(t.failures, "none"))
}

// checkCheckpoints judges each conversation as its client holds it: the
// latest checkpoint's root messages, read from the client's KV store.
func checkCheckpoints(convs []*convRecord) findings {
	var f findings
	for _, conv := range convs {
		if len(conv.turns) == 0 {
			continue
		}
		f.Conversations++
		cp := conv.window.Checkpoint()
		if cp == nil {
			f.Missing++
			judge(&f, conv, nil, "checkpoint")
			continue
		}
		var msgs []conversation.Message
		for _, id := range cp.GetRootPromptMessagesJson() {
			b, ok := conv.window.Blob(id)
			if !ok {
				f.example(fmt.Sprintf("checkpoint: %s: a root blob the client does not hold", conv.id))
				continue
			}
			m, err := conversation.DecodeMessage(b)
			if err != nil {
				f.example(fmt.Sprintf("checkpoint: %s: a root blob that is not a Keygate message", conv.id))
				continue
			}
			msgs = append(msgs, m)
		}
		judge(&f, conv, msgs, "checkpoint")
	}
	return f
}
