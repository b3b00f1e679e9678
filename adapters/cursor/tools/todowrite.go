package tools

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// todoWriteTool keeps the conversation's todo list, on the server.
var todoWriteTool = &tool{
	name:  "TodoWrite",
	modes: userModes,
	runs:  onServer,
	open:  func() handler { return new(todoWrite) },
}

// todoWrite handles one TodoWrite call, at once.
type todoWrite struct{}

var todoStatus = map[string]agentv1.TodoStatus{
	"pending":     agentv1.TodoStatus_TODO_STATUS_PENDING,
	"in_progress": agentv1.TodoStatus_TODO_STATUS_IN_PROGRESS,
	"completed":   agentv1.TodoStatus_TODO_STATUS_COMPLETED,
	"cancelled":   agentv1.TodoStatus_TODO_STATUS_CANCELLED,
}

// start is TodoWrite, a tool the server runs itself: the new list is the
// result at once, and the card carries it for the checkpoint's todos.
func (*todoWrite) start(c *call) (Action, error) {
	raw, ok := c.args["todos"].([]any)
	if !ok {
		return Action{}, c.missing("todos")
	}
	merge := c.flag("merge")
	var list []*agentv1.TodoItem
	if merge {
		for _, t := range c.env.Todos {
			list = append(list, proto.Clone(t).(*agentv1.TodoItem))
		}
	}
	now := c.env.Now().UnixMilli()
	var sent []*agentv1.TodoItem
	for _, t := range raw {
		tm, _ := t.(map[string]any)
		item := &agentv1.TodoItem{Id: str(tm, "id"), Content: str(tm, "content"), Status: todoStatus[str(tm, "status")], UpdatedAt: now}
		if item.Id == "" {
			return Action{}, fmt.Errorf("%s: every todo needs an id", c.name)
		}
		sent = append(sent, item)
		replaced := false
		for i, old := range list {
			if old.GetId() == item.GetId() {
				item.CreatedAt = old.GetCreatedAt()
				if item.Content == "" {
					item.Content = old.GetContent()
				}
				list[i], replaced = item, true
			}
		}
		if !replaced {
			item.CreatedAt = now
			list = append(list, item)
		}
	}
	c.card.Tool = &agentv1.ToolCall_UpdateTodosToolCall{UpdateTodosToolCall: &agentv1.UpdateTodosToolCall{
		Args: &agentv1.UpdateTodosArgs{Todos: sent, Merge: merge},
		Result: &agentv1.UpdateTodosResult{Result: &agentv1.UpdateTodosResult_Success{Success: &agentv1.UpdateTodosSuccess{
			Todos: list, TotalCount: int32(len(list)), WasMerge: merge}}},
	}}
	var b strings.Builder
	b.WriteString("Todo list updated:\n")
	for _, t := range list {
		fmt.Fprintf(&b, "- [%s] %s\n", strings.ToLower(strings.TrimPrefix(t.GetStatus().String(), "TODO_STATUS_")), t.GetContent())
	}
	return finish(b.String(), false), nil
}

// Todos returns the list a finished TodoWrite produced, or nil for any
// other call.
func (c *Call) Todos() ([]*agentv1.TodoItem, bool) {
	s := c.in.card.GetUpdateTodosToolCall().GetResult().GetSuccess()
	if !c.done || s == nil {
		return nil, false
	}
	return s.GetTodos(), true
}
