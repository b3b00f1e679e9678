package turn

import (
	"path"
	"strings"
)

// RequestContext is the conversation-level environment a client sends
// with a request: the user's machine, repositories, project layouts,
// rules, skills and subagents. It is compiled into the environment's
// request-context message (channel conversation.ContextEnvironment), never
// into the runtime message or the system prompt. The MCP servers, the mode
// and the editor's state change on their own and have channels of their
// own (MCP, ModeContext, Editor).
type RequestContext struct {
	UserInfo UserInfo
	Git      []GitRepo
	// TranscriptsFolder is where the client keeps agent transcripts.
	TranscriptsFolder string
	// Layouts are the workspace's project layouts, already rendered.
	Layouts   []Layout
	Rules     []Rule
	Skills    []Skill
	Subagents []Subagent
	// Hooks is what the user's hooks add to the conversation's context.
	Hooks string
}

// MCP is the client's MCP servers with their tools, compiled into the MCP
// channel's request-context message. The model calls every tool listed
// here through the generic CallMcpTool, so a server added mid-conversation
// appends a message instead of changing the tools that lead every prompt.
type MCP struct {
	Servers []MCPServer
	// Instructions are the instructions of MCP servers that are not among
	// Servers.
	Instructions []MCPInstructions
}

// Layout is a project's directory tree as the client listed it.
type Layout struct {
	Root string
	Tree string
}

// MCPInstructions are an MCP server's instructions for the model.
type MCPInstructions struct {
	Server string
	Text   string
}

// UserInfo describes the user's environment.
type UserInfo struct {
	OS              string
	Shell           string
	Workspace       string
	IsGitRepo       bool
	TerminalsFolder string
	// Today is the client's date, as the client formats it.
	Today string
}

// GitRepo is a repository's status at the start of the conversation.
type GitRepo struct {
	Path   string
	Status string
}

// Rule is a rule file or a non-file rule. A rule is inlined whole, unless
// it is Requestable: then the model sees its name and description and
// fetches its content when the rule applies.
type Rule struct {
	Path    string
	Content string
	// Requestable rules are listed by Name with their Description.
	Requestable bool
	Name        string
	Description string
}

// Skill is an agent skill the model may invoke.
type Skill struct {
	Path        string
	Description string
	Content     string
	// DisableModelInvocation hides the skill from the model.
	DisableModelInvocation bool
}

// Subagent is a custom subagent the model may start.
type Subagent struct {
	Name        string
	Description string
}

// MCPServer is an MCP server and its tools.
type MCPServer struct {
	Name       string
	Identifier string
	// Instructions are the server's own instructions for the model.
	Instructions string
	Tools        []MCPTool
}

// MCPTool is one tool of an MCP server.
type MCPTool struct {
	Name           string
	Description    string
	DefinitionPath string
	InputSchema    string
}

// Compile renders the context as tagged sections separated by blank lines,
// in a fixed order: user info, git status, project layouts, transcripts,
// rules, skills, subagents, hooks. Empty sections are left out. Rules that are skill
// files (SKILL.md) or repeat a skill's content are dropped, and skills hidden
// from the model are not listed. The result depends only on c, so an
// unchanged context compiles to identical bytes.
func (c RequestContext) Compile() string {
	var sections []string
	add := func(s string) {
		if s != "" {
			sections = append(sections, s)
		}
	}
	add(c.userInfo())
	for _, g := range c.Git {
		add(element("git_status", attrs("path", g.Path),
			"Repository status when the conversation started; it may be out of date.\n"+g.Status))
	}
	for _, l := range c.Layouts {
		add(element("project_layout", attrs("root", l.Root),
			"The project's files when the conversation started; it may be out of date.\n"+l.Tree))
	}
	if c.TranscriptsFolder != "" {
		add(element("agent_transcripts", "", "Earlier agent transcripts are in "+c.TranscriptsFolder+"."))
	}
	add(c.rules())
	add(c.skills())
	var subagents []string
	for _, s := range c.Subagents {
		subagents = append(subagents, element("subagent", attrs("name", s.Name), s.Description))
	}
	add(wrap("subagents", subagents))
	if c.Hooks != "" {
		add(element("hooks_context", "", c.Hooks))
	}
	return strings.Join(sections, "\n\n")
}

func (c RequestContext) userInfo() string {
	u := c.UserInfo
	if u == (UserInfo{}) {
		return ""
	}
	git := "no"
	if u.IsGitRepo {
		git = "yes"
	}
	lines := []string{
		"Operating system: " + u.OS,
		"Shell: " + u.Shell,
		"Workspace: " + u.Workspace,
		"Workspace is a git repository: " + git,
		"Terminals folder: " + u.TerminalsFolder,
		"Today: " + u.Today,
		"Use absolute paths in tool arguments where you can.",
	}
	return element("user_info", "", strings.Join(lines, "\n"))
}

func (c RequestContext) rules() string {
	var out, requestable []string
	for _, r := range c.Rules {
		if path.Base(r.Path) == "SKILL.md" || c.isSkillContent(r.Content) {
			continue
		}
		if r.Requestable {
			requestable = append(requestable, element("agent_requestable_rule", attrs("name", r.Name, "path", r.Path), r.Description))
			continue
		}
		out = append(out, element("user_rule", attrs("path", r.Path), r.Content))
	}
	if len(requestable) > 0 {
		out = append(out, element("agent_requestable_rules", "",
			"These rules apply to some tasks only. When one applies, fetch its content with FetchRules by name.\n"+
				strings.Join(requestable, "\n")))
	}
	return wrap("rules", out)
}

func (c RequestContext) isSkillContent(content string) bool {
	for _, s := range c.Skills {
		if s.Content != "" && s.Content == content {
			return true
		}
	}
	return false
}

func (c RequestContext) skills() string {
	var out []string
	for _, s := range c.Skills {
		if !s.DisableModelInvocation {
			out = append(out, element("agent_skill", attrs("fullPath", s.Path), s.Description))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return element("agent_skills", "", wrap("available_skills", out))
}

// NoMCPServers is the MCP channel's text once the client reports no MCP
// server (see Context.Clears).
const NoMCPServers = "<mcp_tools>\nNo MCP servers are connected now.\n</mcp_tools>"

// Compile renders the servers and their tools, each tool with its input
// schema, after one sentence on how to call them, then the instructions of
// other servers; "" when there is neither. The result depends only on m.
func (m MCP) Compile() string {
	var servers []string
	for _, s := range m.Servers {
		var tools []string
		for _, t := range s.Tools {
			body := strings.Join(nonEmpty(
				t.Description,
				prefixed("Definition: ", t.DefinitionPath),
				prefixed("Input schema: ", t.InputSchema),
			), "\n")
			tools = append(tools, element("mcp_tool", attrs("name", t.Name), body))
		}
		body := strings.Join(nonEmpty(optionalElement("instructions", s.Instructions), wrap("tools", tools)), "\n")
		servers = append(servers, element("mcp_server", attrs("name", s.Name, "identifier", s.Identifier), body))
	}
	var sections []string
	if len(servers) > 0 {
		sections = append(sections, element("mcp_tools", "",
			"Tools of the user's MCP servers. Call one with CallMcpTool: server is the server's identifier (its name when it has none), "+
				"toolName the tool's name, arguments an object that matches the tool's input schema.\n"+strings.Join(servers, "\n")))
	}
	var instructions []string
	for _, in := range m.Instructions {
		instructions = append(instructions, element("mcp_server_instructions", attrs("server", in.Server), in.Text))
	}
	if s := wrap("mcp_instructions", instructions); s != "" {
		sections = append(sections, s)
	}
	return strings.Join(sections, "\n\n")
}
