package tools

// registry lists every Cursor tool, in the order the model sees them (a
// mode offers its tools in this order, so the provider request stays
// byte-stable). A new tool is its own file, its catalog.json entry and one
// line here; the package's specs check that the three agree and that the
// tool has a behaviour spec.
//
// Tools lead every provider prompt, so a mode switch keeps the prompt cache
// up to the first tool the two modes do not share. The order therefore
// puts what the modes share first: the tools every mode the user works in
// offers (the shared head, SharedTools long), then the tools of every mode
// but ask, then those that change files, then those of one mode. A switch
// between agent and plan keeps the first two groups, between ask and any
// other mode the first; subagents never switch.
var registry = []*tool{
	// Every mode the user works in.
	readTool,
	lsTool,
	globTool,
	grepTool,
	readLintsTool,
	fetchRulesTool,
	callMcpTool,
	getMcpToolsTool,
	listMcpResourcesTool,
	fetchMcpResourceTool,
	todoWriteTool,
	askQuestionTool,
	mcpAuthTool,
	webSearchTool,
	webFetchTool,
	// Every mode but ask.
	shellTool,
	backgroundShellTool,
	writeShellStdinTool,
	awaitTool,
	taskTool,
	// Modes that change files.
	writeTool,
	strReplaceTool,
	deleteTool,
	editNotebookTool,
	// One mode or two.
	switchModeTool,
	createPlanTool,
}

// Modes with a tool list (package compile names the same modes).
const (
	modeAgent     = "agent"
	modeDebug     = "debug"
	modeMultitask = "multitask"
	modeAsk       = "ask"
	modePlan      = "plan"
	modeSubagent  = "subagent"
)

var (
	everyMode = []string{modeAgent, modeDebug, modeMultitask, modeAsk, modePlan, modeSubagent}
	// editingModes may change files: ask and plan cannot.
	editingModes = []string{modeAgent, modeDebug, modeMultitask, modeSubagent}
	// userModes talk to the user: a subagent gets no interaction tools.
	// They are the modes a conversation switches among.
	userModes = []string{modeAgent, modeDebug, modeMultitask, modeAsk, modePlan}
)
