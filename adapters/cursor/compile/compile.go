package compile

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"keygate/adapters/cursor/tools"
	"keygate/app/run"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/projection"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// Input is one turn to compile.
type Input struct {
	RequestID string
	// RunID is the run's id (conversation.RunID of RequestID and a nonce).
	RunID   string
	Request *agentv1.AgentRunRequest
	// Action opened the turn: Request.Action, or a follow-up action.
	Action *agentv1.ConversationAction
	// ConversationID is the conversation the turn belongs to.
	ConversationID string
	// History is the message list of the conversation's head.
	History []conversation.Message
	// ConversationMode is the mode of the client's latest checkpoint.
	ConversationMode agentv1.AgentMode
	// Model is the resolved model. Nothing of its configuration but the
	// provider settings reaches the prompt (no display name), so Keygate
	// models over one upstream model share the provider's cache.
	Model run.Model
	// Blobs holds the resolved request-context part blobs, by raw id.
	Blobs map[string][]byte
	// PendingRoundID names the tool round a resumed checkpoint left open.
	PendingRoundID string
	// BaseCheckpointID is the checkpoint an edited message branches from.
	BaseCheckpointID string
	Now              time.Time
	// Web says which of WebSearch and WebFetch the server can run (a
	// search backend, the fetcher); the request context may switch either
	// off (WebAccess).
	Web tools.WebAccess
	// Images, when not nil, are the user message's images already
	// resolved (stored as blobs); otherwise only inline image bytes count.
	Images []llm.Image
	// Shell is the outcome of the user's shell command a ShellCommandAction
	// ran (see ShellCommandOf).
	Shell *UserShell
	// Goal is the conversation's goal (the checkpoint's goal_state).
	Goal *agentv1.GoalState
	// Schemas, when not nil, keeps rendered MCP input schemas across
	// turns.
	Schemas *Schemas
	// Memories, when not nil, are the user's memories as the server keeps
	// them (the client never sends them): the memories channel (nil: the
	// server keeps none, and the channel says nothing).
	Memories *turn.Memories
}

// Output is a compiled turn.
type Output struct {
	Run  run.PreparedRun
	Mode Mode
	// UserMessage is the user message the turn shows (nil for resume and
	// compaction); EventID is its event id.
	UserMessage *agentv1.UserMessage
	EventID     string
	// MCP are the client's own MCP tools and Servers its MCP servers: the
	// request context's MCP channel lists both, CallMcpTool reaches both.
	MCP     []*agentv1.McpToolDefinition
	Servers []*agentv1.McpDescriptor
	// Shell is the user's shell command the turn records, for the client's
	// shell turn.
	Shell *agentv1.ShellConversationTurn
	// Rules are the rules the run applies on demand: glob rules attach to
	// the results of tool calls on matching files, agent-requestable ones
	// are fetched by name (FetchRules).
	Rules []*agentv1.CursorRule
	// AppliedRules are the paths of the rules the turn's message carries
	// already (attached, mentioned or matched by an attached file).
	AppliedRules []string
	// PromptFor returns the instructions and tools of another mode with
	// everything else of this turn kept (a mode switch during the run).
	PromptFor func(Mode) (projection.Prompt, error)
	// Workspaces are the client's workspace folders and TerminalsFolder
	// where it writes background shells' output; NoMCPAuth says the client
	// cannot sign in to MCP servers.
	Workspaces      []string
	TerminalsFolder string
	NoMCPAuth       bool
}

// ErrUnsupportedAction marks an action that cannot open a turn.
var ErrUnsupportedAction = errors.New("action cannot start a turn")

// Compile builds the run of one turn: the action that opened it (see
// actions) decides the run's action and its new messages; the mode, the
// model, the prompt and the tools are common to every action.
func Compile(in Input) (Output, error) {
	act := actionOf(in.Action)
	msgMode := agentv1.AgentMode_AGENT_MODE_UNSPECIFIED
	if act != nil && act.mode != nil {
		msgMode = act.mode(in.Action)
	}
	mode, err := ModeOf(msgMode, in.ConversationMode, in.Request.GetSubagentTypeName())
	if err != nil {
		return Output{}, err
	}
	p := run.PreparedRun{
		RunID: in.RunID, CursorRequestID: in.RequestID, ConversationID: in.ConversationID,
		Model: in.Model, BaseCheckpointID: in.BaseCheckpointID, Kind: run.KindRoot,
	}
	if in.Request.GetSubagentTypeName() != "" {
		p.Kind = run.KindSubagent
	}
	rc, err := requestContext(in.Action, in.Blobs)
	if err != nil {
		return Output{}, err
	}
	web := WebAccess(in.Web, rc)
	out := Output{Mode: mode, MCP: directMCP(in.Request.GetMcpTools().GetMcpTools(), rc.GetTools()),
		Servers: rc.GetMcpMetaToolOptions().GetMcpDescriptors(), Rules: onDemandRules(rc),
		Workspaces: rc.GetEnv().GetWorkspacePaths(), TerminalsFolder: rc.GetEnv().GetTerminalsFolder(),
		NoMCPAuth: rc != nil && rc.SupportsMcpAuth != nil && !rc.GetSupportsMcpAuth()}
	out.PromptFor = func(m Mode) (projection.Prompt, error) {
		p, err := Prompt(m, web)
		if err != nil {
			return p, err
		}
		if custom := strings.TrimSpace(in.Request.GetCustomSystemPrompt()); custom != "" {
			p.Instructions += "\n\n" + custom
		}
		return p, nil
	}
	if p.Prompt, err = out.PromptFor(mode); err != nil {
		return Output{}, err
	}
	if act == nil {
		return Output{}, fmt.Errorf("compile turn: %w", ErrUnsupportedAction)
	}
	o := act.open(in, mode)
	p.Action = run.Action{Kind: o.kind, PendingRoundID: o.pendingRoundID}
	if o.prompt != nil {
		p.Prompt = *o.prompt
	}
	if o.input != nil {
		if p.InitialMessages, err = initial(in, mode, o.user, out.MCP, *o.input); err != nil {
			return Output{}, err
		}
	}
	out.UserMessage, out.EventID, out.Run, out.Shell, out.AppliedRules = o.user, o.eventID, p, o.shell, o.rules
	return out, nil
}

// WebAccess is the web tools a turn offers: those the server can run,
// minus those the client switched off. The client's request context says
// web_search_enabled and web_fetch_enabled (Cursor's settings for the
// agent's web tools); a client that says nothing leaves them on.
func WebAccess(server tools.WebAccess, rc *agentv1.RequestContext) tools.WebAccess {
	if rc == nil {
		return server
	}
	if rc.WebSearchEnabled != nil && !rc.GetWebSearchEnabled() {
		server.Search = false
	}
	if rc.WebFetchEnabled != nil && !rc.GetWebFetchEnabled() {
		server.Fetch = false
	}
	return server
}

// initial adds the request context's channels to ti (the environment and
// the MCP servers from the request context, the turn's mode, the editor's
// state the user message um carries) and asks domain/turn which messages
// history needs; request-context messages history holds for the same event
// are reused so a retry keeps the prefix byte-stable.
func initial(in Input, mode Mode, um *agentv1.UserMessage, direct []*agentv1.McpToolDefinition, ti turn.Input) ([]conversation.Message, error) {
	rc, err := requestContext(in.Action, in.Blobs)
	if err != nil {
		return nil, err
	}
	// A resume continues the run it resumes: a mode message would make it
	// call the model again after a stored final answer.
	ti.Contexts = contexts(rc, direct, mode, ti.Trigger != turn.TriggerResume, um, in.Now, in.Schemas)
	if in.Memories != nil && ti.Trigger != turn.TriggerResume {
		ti.Contexts = append(ti.Contexts, in.Memories.Context())
	}
	for _, m := range in.History {
		if _, event, ok := conversation.ContextOf(m.ID()); ok && event == ti.EventID {
			ti.Stored = append(ti.Stored, m)
		}
	}
	msgs, err := turn.InitialMessages(in.History, ti)
	if err != nil {
		return nil, fmt.Errorf("compile turn: %w", err)
	}
	return msgs, nil
}

// renderedOf is the runtime content an event id hashes: the text parts and
// the image count, so an edited message becomes a new event.
func renderedOf(parts []llm.Part) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Kind == llm.PartText {
			b.WriteString(p.Text)
		} else {
			b.WriteString("\x00image")
		}
	}
	return b.String()
}

// directMCP merges the run request's and the request context's MCP tools;
// the first definition of a name wins.
func directMCP(lists ...[]*agentv1.McpToolDefinition) []*agentv1.McpToolDefinition {
	var out []*agentv1.McpToolDefinition
	seen := map[string]bool{}
	for _, l := range lists {
		for _, d := range l {
			if d.GetName() == "" || seen[d.GetName()] {
				continue
			}
			seen[d.GetName()] = true
			out = append(out, d)
		}
	}
	return out
}

// ImageRefs lists the user message's images as (blob id, inline data,
// MIME type), for the run layer to resolve and store before Compile.
func ImageRefs(a *agentv1.ConversationAction) []ImageRef {
	var out []ImageRef
	for _, img := range a.GetUserMessageAction().GetUserMessage().GetSelectedContext().GetSelectedImages() {
		r := ImageRef{MIMEType: img.GetMimeType(), Path: img.GetPath()}
		switch {
		case len(img.GetData()) > 0:
			r.Data = img.GetData()
		case img.GetBlobIdWithData() != nil:
			r.BlobID, r.Data = img.GetBlobIdWithData().GetBlobId(), img.GetBlobIdWithData().GetData()
		default:
			r.BlobID = img.GetBlobId()
		}
		out = append(out, r)
	}
	return out
}

// ImageRef is one selected image before resolution.
type ImageRef struct {
	BlobID   []byte
	Data     []byte
	MIMEType string
	Path     string
}
