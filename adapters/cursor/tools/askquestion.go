package tools

import (
	"fmt"
	"strings"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// askQuestionTool asks the user multiple-choice questions; the answers are
// the result.
var askQuestionTool = &tool{
	name:  "AskQuestion",
	modes: userModes,
	runs:  withUser,
	open:  func() handler { return new(askQuestion) },
}

// askQuestion handles one AskQuestion call; it keeps nothing between steps (the card holds
// what a later step reads).
type askQuestion struct{}

func (*askQuestion) start(c *call) (Action, error) {
	raw, ok := c.args["questions"].([]any)
	if !ok || len(raw) == 0 {
		return Action{}, c.missing("questions")
	}
	args := &agentv1.AskQuestionArgs{Title: c.str("title")}
	for _, q := range raw {
		qm, _ := q.(map[string]any)
		question := &agentv1.AskQuestionArgs_Question{Id: str(qm, "id"), Prompt: str(qm, "prompt")}
		question.AllowMultiple, _ = qm["allow_multiple"].(bool)
		opts, _ := qm["options"].([]any)
		for _, o := range opts {
			om, _ := o.(map[string]any)
			question.Options = append(question.Options, &agentv1.AskQuestionArgs_Option{Id: str(om, "id"), Label: str(om, "label")})
		}
		args.Questions = append(args.Questions, question)
	}
	c.card.Tool = &agentv1.ToolCall_AskQuestionToolCall{AskQuestionToolCall: &agentv1.AskQuestionToolCall{Args: args}}
	return Action{Query: &agentv1.InteractionQuery{Query: &agentv1.InteractionQuery_AskQuestionInteractionQuery{
		AskQuestionInteractionQuery: &agentv1.AskQuestionInteractionQuery{Args: args, ToolCallId: c.id}}}}, nil
}

func (*askQuestion) onInteraction(c *call, r *agentv1.InteractionResponse) Action {
	ask := r.GetAskQuestionInteractionResponse()
	if ask == nil {
		return fail("unexpected interaction response")
	}
	c.card.GetAskQuestionToolCall().Result = ask.GetResult()
	if ask.GetResult().GetAsync() != nil {
		// The user answers later; the answers come as a message of their
		// own (AsyncAskQuestionCompletionAction).
		return finish("The user will answer these questions later; their answers will reach you in a message. "+
			"Go on with what does not depend on them.", false)
	}
	if ask.GetResult().GetSuccess() == nil {
		return fail(describe("ask question", ask.GetResult()))
	}
	return finish(AnswersText(c.card.GetAskQuestionToolCall().GetArgs(), ask.GetResult()), false)
}

// AnswersText renders the user's answers to an AskQuestion for the model:
// one line per question, the chosen options and any text of the user's
// own; a declined or failed question set says so.
func AnswersText(args *agentv1.AskQuestionArgs, r *agentv1.AskQuestionResult) string {
	s := r.GetSuccess()
	if s == nil {
		return describe("ask question", r) + "\n"
	}
	labels := map[string]string{}
	for _, q := range args.GetQuestions() {
		for _, o := range q.GetOptions() {
			labels[q.GetId()+"\x00"+o.GetId()] = o.GetLabel()
		}
	}
	var b strings.Builder
	for _, a := range s.GetAnswers() {
		chosen := make([]string, 0, len(a.GetSelectedOptionIds()))
		for _, id := range a.GetSelectedOptionIds() {
			if l := labels[a.GetQuestionId()+"\x00"+id]; l != "" {
				id += " (" + l + ")"
			}
			chosen = append(chosen, id)
		}
		fmt.Fprintf(&b, "%s: %s", a.GetQuestionId(), strings.Join(chosen, ", "))
		if a.GetFreeformText() != "" {
			b.WriteString(" (" + a.GetFreeformText() + ")")
		}
		b.WriteString("\n")
	}
	return b.String()
}
