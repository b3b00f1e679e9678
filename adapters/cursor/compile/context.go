package compile

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"fmt"
	"slices"
	"time"

	"google.golang.org/protobuf/proto"

	"keygate/adapters/cursor/tools"
	"keygate/domain/conversation"
	"keygate/domain/llm"
	"keygate/domain/turn"
	agentv1 "keygate/gen/cursor/agent/v1"
)

// PartIDs returns the blob ids of the action's request-context parts that
// must be resolved (pre_fetched_blobs or KV GET) before Compile.
func PartIDs(a *agentv1.ConversationAction) [][]byte {
	p := a.GetRequestContextParts()
	var ids [][]byte
	for _, id := range [][]byte{p.GetRulesBlobId(), p.GetSkillsBlobId(), p.GetSubagentsBlobId(), p.GetMcpsBlobId()} {
		if len(id) > 0 {
			ids = append(ids, id)
		}
	}
	return ids
}

// BadPartError is a request-context part blob that does not match its
// reference (length, digest or encoding).
type BadPartError struct {
	Part   string
	Reason string
}

func (e *BadPartError) Error() string {
	return fmt.Sprintf("request context part %s: %s", e.Part, e.Reason)
}

// requestContext assembles the action's request context: the inline one,
// or with request_context_parts the dynamic part plus the static parts
// decoded from their blobs.
func requestContext(a *agentv1.ConversationAction, blobs map[string][]byte) (*agentv1.RequestContext, error) {
	inline := inlineContext(a)
	p := a.GetRequestContextParts()
	if p == nil {
		return inline, nil
	}
	rc := proto.Clone(p.GetDynamicContext()).(*agentv1.RequestContext)
	if p.GetDynamicContext() == nil {
		rc = &agentv1.RequestContext{}
		if inline != nil {
			rc = proto.Clone(inline).(*agentv1.RequestContext)
		}
	}
	var rules agentv1.RequestContextRulesPart
	if err := decodePart("rules", p.GetRulesBlobId(), p.GetRulesByteLength(), blobs, &rules); err != nil {
		return nil, err
	}
	var skills agentv1.RequestContextSkillsPart
	if err := decodePart("skills", p.GetSkillsBlobId(), p.GetSkillsByteLength(), blobs, &skills); err != nil {
		return nil, err
	}
	var subs agentv1.RequestContextSubagentsPart
	if err := decodePart("subagents", p.GetSubagentsBlobId(), p.GetSubagentsByteLength(), blobs, &subs); err != nil {
		return nil, err
	}
	var mcps agentv1.RequestContextMcpsPart
	if err := decodePart("mcps", p.GetMcpsBlobId(), p.GetMcpsByteLength(), blobs, &mcps); err != nil {
		return nil, err
	}
	rc.Rules = append(rc.Rules, rules.GetRules()...)
	rc.NonFileRules = append(rc.NonFileRules, rules.GetNonFileRules()...)
	rc.AgentSkills = append(rc.AgentSkills, skills.GetAgentSkills()...)
	rc.CustomSubagents = append(rc.CustomSubagents, subs.GetCustomSubagents()...)
	rc.Tools = append(rc.Tools, mcps.GetTools()...)
	if mcps.GetMcpMetaToolOptions() != nil {
		rc.McpMetaToolOptions = mcps.GetMcpMetaToolOptions()
	}
	return rc, nil
}

func inlineContext(a *agentv1.ConversationAction) *agentv1.RequestContext {
	switch {
	case a.GetUserMessageAction() != nil:
		return a.GetUserMessageAction().GetRequestContext()
	case a.GetResumeAction() != nil:
		return a.GetResumeAction().GetRequestContext()
	case a.GetExecutePlanAction() != nil:
		return a.GetExecutePlanAction().GetRequestContext()
	case a.GetStartPlanAction() != nil:
		return a.GetStartPlanAction().GetRequestContext()
	case a.GetSubscriptionNotificationAction() != nil:
		return a.GetSubscriptionNotificationAction().GetRequestContext()
	case a.GetInjectContextAction() != nil:
		return a.GetInjectContextAction().GetUserContext().GetRequestContext()
	}
	return nil
}

func decodePart(name string, id []byte, length uint32, blobs map[string][]byte, into proto.Message) error {
	if len(id) == 0 {
		return nil
	}
	data, ok := blobs[string(id)]
	switch {
	case !ok:
		return &BadPartError{Part: name, Reason: "blob not resolved"}
	case uint32(len(data)) != length:
		return &BadPartError{Part: name, Reason: fmt.Sprintf("%d bytes, reference says %d", len(data), length)}
	}
	if sum := sha256.Sum256(data); !bytes.Equal(sum[:], id) {
		return &BadPartError{Part: name, Reason: "digest does not match the blob id"}
	}
	if err := proto.Unmarshal(data, into); err != nil {
		return &BadPartError{Part: name, Reason: err.Error()}
	}
	return nil
}

// contexts compiles the request context's channels: the environment and
// the MCP servers (the request context's and the client's own MCP tools,
// direct) when the client sent a request context, the mode when withMode,
// the editor's state when the user message um carries one, and the open
// files' contents (RequestContext.file_contents) when the client sent some.
// A request without contents says nothing about them: the editor channel
// says which files are open.
func contexts(rc *agentv1.RequestContext, direct []*agentv1.McpToolDefinition, mode Mode, withMode bool, um *agentv1.UserMessage, now time.Time, schemas *Schemas) []turn.Context {
	var out []turn.Context
	if env := compileContext(rc, now); env != "" {
		out = append(out, turn.Context{Channel: conversation.ContextEnvironment, Text: env})
	}
	if c, ok := mcpContext(rc, direct, schemas); ok {
		out = append(out, c)
	}
	if withMode {
		out = append(out, turn.Context{Channel: conversation.ContextMode, Text: ModeText(mode)})
	}
	if c, ok := editorContext(um); ok {
		out = append(out, c)
	}
	if text := turn.OpenFiles(rc.GetFileContents()).Compile(); text != "" {
		out = append(out, turn.Context{Channel: conversation.ContextFiles, Text: text})
	}
	return out
}

// compileContext renders the environment's request context; "" when the
// client sent none.
func compileContext(rc *agentv1.RequestContext, now time.Time) string {
	if rc == nil {
		return ""
	}
	env := rc.GetEnv()
	c := turn.RequestContext{UserInfo: turn.UserInfo{
		OS: env.GetOsVersion(), Shell: env.GetShell(), TerminalsFolder: env.GetTerminalsFolder(),
		IsGitRepo: len(rc.GetGitRepos()) > 0,
	}, TranscriptsFolder: env.GetAgentTranscriptsFolder()}
	if ws := env.GetWorkspacePaths(); len(ws) > 0 {
		c.UserInfo.Workspace = ws[0]
	}
	if env != nil {
		loc := time.UTC
		if l, err := time.LoadLocation(env.GetTimeZone()); err == nil && env.GetTimeZone() != "" {
			loc = l
		}
		c.UserInfo.Today = now.In(loc).Format("Monday Jan 2, 2006")
	}
	for _, g := range rc.GetGitRepos() {
		c.Git = append(c.Git, turn.GitRepo{Path: g.GetPath(), Status: g.GetStatus()})
	}
	c.Rules = contextRules(rc)
	c.Layouts = layouts(rc.GetProjectLayouts())
	c.Hooks = rc.GetHooksAdditionalContext()
	for _, s := range rc.GetAgentSkills() {
		c.Skills = append(c.Skills, turn.Skill{Path: s.GetFullPath(), Description: s.GetDescription(),
			Content: s.GetContent(), DisableModelInvocation: s.GetDisableModelInvocation()})
	}
	for _, s := range rc.GetCustomSubagents() {
		c.Subagents = append(c.Subagents, turn.Subagent{Name: s.GetName(), Description: s.GetDescription()})
	}
	return c.Compile()
}

// mcpContext is the MCP channel: the servers of the meta-tool options in
// the client's order, then the servers of the client's own MCP tools
// (direct) by identifier with their tools by name, so that a list the
// client merely reorders compiles to the same text. Every tool is called
// through CallMcpTool. A request context that lists no server clears the
// channel, unless it says its MCP information is incomplete.
func mcpContext(rc *agentv1.RequestContext, direct []*agentv1.McpToolDefinition, schemas *Schemas) (turn.Context, bool) {
	if rc == nil && len(direct) == 0 {
		return turn.Context{}, false
	}
	var m turn.MCP
	instructions := rc.GetMcpInstructions()
	shown := map[int]bool{}
	instructionsOf := func(name, identifier string) string {
		text := ""
		for i, in := range instructions {
			if in.GetServerIdentifier() == identifier || (in.GetServerIdentifier() == "" && in.GetServerName() == name) {
				shown[i] = true
				if text == "" {
					text = in.GetInstructions()
				}
			}
		}
		return text
	}
	listed := map[[2]string]bool{}
	for _, d := range rc.GetMcpMetaToolOptions().GetMcpDescriptors() {
		srv := turn.MCPServer{Name: d.GetServerName(), Identifier: d.GetServerIdentifier(), Instructions: d.GetServerUseInstructions()}
		if in := instructionsOf(d.GetServerName(), d.GetServerIdentifier()); srv.Instructions == "" {
			srv.Instructions = in
		}
		for _, t := range d.GetTools() {
			srv.Tools = append(srv.Tools, turn.MCPTool{Name: t.GetToolName(), Description: t.GetDescription(),
				DefinitionPath: t.GetDefinitionPath(), InputSchema: t.GetInputSchemaJson()})
			listed[[2]string{d.GetServerIdentifier(), t.GetToolName()}] = true
			listed[[2]string{d.GetServerName(), t.GetToolName()}] = true
		}
		m.Servers = append(m.Servers, srv)
	}
	own := slices.Clone(direct)
	slices.SortStableFunc(own, func(a, b *agentv1.McpToolDefinition) int {
		return cmp.Or(cmp.Compare(a.GetProviderIdentifier(), b.GetProviderIdentifier()), cmp.Compare(tools.DirectToolName(a), tools.DirectToolName(b)))
	})
	for _, d := range own {
		server, name := d.GetProviderIdentifier(), tools.DirectToolName(d)
		if listed[[2]string{server, name}] {
			continue
		}
		if n := len(m.Servers); n == 0 || m.Servers[n-1].Identifier != server || m.Servers[n-1].Name != "" {
			m.Servers = append(m.Servers, turn.MCPServer{Identifier: server, Instructions: instructionsOf(server, server)})
		}
		srv := &m.Servers[len(m.Servers)-1]
		srv.Tools = append(srv.Tools, turn.MCPTool{Name: name, Description: d.GetDescription(), InputSchema: mcpSchema(d, schemas)})
	}
	for i, in := range instructions {
		if shown[i] || in.GetInstructions() == "" {
			continue
		}
		name := in.GetServerName()
		if name == "" {
			name = in.GetServerIdentifier()
		}
		m.Instructions = append(m.Instructions, turn.MCPInstructions{Server: name, Text: in.GetInstructions()})
	}
	if text := m.Compile(); text != "" {
		return turn.Context{Channel: conversation.ContextMCP, Text: text}, true
	}
	if rc == nil || (rc.McpInfoComplete != nil && !rc.GetMcpInfoComplete()) {
		return turn.Context{}, false
	}
	return turn.Context{Channel: conversation.ContextMCP, Text: turn.NoMCPServers, Clears: true}, true
}

// editorContext is the editor channel from the editor's state the client
// attaches to the user's message (selected_context.invocation_context's
// ide_state: the visible files, the cursor, recently viewed files). A
// message without one says nothing about the editor; one without files
// clears the channel.
func editorContext(um *agentv1.UserMessage) (turn.Context, bool) {
	ide := um.GetSelectedContext().GetInvocationContext().GetIdeState()
	if ide == nil {
		return turn.Context{}, false
	}
	file := func(f *agentv1.InvocationContext_IdeState_File) turn.EditorFile {
		p := f.GetPath()
		if p == "" {
			p = f.GetRelativePath()
		}
		return turn.EditorFile{Path: p, Lines: int(f.GetTotalLines()), CursorLine: int(f.GetCursorPosition().GetLine()),
			CursorText: f.GetCursorPosition().GetText()}
	}
	var e turn.Editor
	for _, f := range ide.GetVisibleFiles() {
		e.Open = append(e.Open, file(f))
	}
	for _, f := range ide.GetRecentlyViewedFiles() {
		e.Recent = append(e.Recent, file(f))
	}
	if e.Empty() {
		return turn.Context{Channel: conversation.ContextEditor, Text: turn.NoOpenFiles, Clears: true}, true
	}
	return turn.Context{Channel: conversation.ContextEditor, Text: e.Compile()}, true
}

// selection converts the user message's attached context.
func selection(sc *agentv1.SelectedContext) turn.Selection {
	var s turn.Selection
	for _, f := range sc.GetFiles() {
		s.Files = append(s.Files, turn.File{Path: f.GetPath(), Content: f.GetContent()})
	}
	for _, c := range sc.GetCodeSelections() {
		s.Code = append(s.Code, turn.CodeSelection{Path: c.GetPath(), Content: c.GetContent(),
			StartLine: int(c.GetRange().GetStart().GetLine()), EndLine: int(c.GetRange().GetEnd().GetLine())})
	}
	for _, t := range sc.GetTerminals() {
		s.Terminals = append(s.Terminals, turn.Terminal{Title: t.GetTitle(), Content: t.GetContent()})
	}
	for _, t := range sc.GetTerminalSelections() {
		s.TerminalSelections = append(s.TerminalSelections, t.GetContent())
	}
	for _, r := range sc.GetCursorRules() {
		s.Rules = append(s.Rules, turn.Rule{Path: r.GetRule().GetFullPath(), Content: r.GetRule().GetContent()})
	}
	for _, c := range sc.GetCursorCommands() {
		s.Commands = append(s.Commands, turn.Command{Name: c.GetName(), Content: c.GetContent()})
	}
	for _, k := range sc.GetSelectedSkills() {
		s.Skills = append(s.Skills, turn.Skill{Path: k.GetFullPath(), Description: k.GetDescription(), Content: k.GetContent()})
	}
	for _, l := range sc.GetExternalLinks() {
		s.ExternalLinks = append(s.ExternalLinks, l.GetUrl())
	}
	for _, img := range sc.GetSelectedImages() {
		if data := img.GetData(); len(data) > 0 {
			s.Images = append(s.Images, llm.Image{MIMEType: img.GetMimeType(), Data: data})
		}
	}
	return s
}
