package tools

// registry lists every Cursor tool, in the order the model sees them (a
// mode offers its tools in this order, so the provider request stays
// byte-stable). A new tool is its own file, its catalog.json entry and one
// line here; the package's specs check that the three agree and that the
// tool has a behaviour spec.
var registry = []*tool{
	readTool,
	lsTool,
	globTool,
	grepTool,
	readLintsTool,
	writeTool,
	strReplaceTool,
	deleteTool,
	shellTool,
	todoWriteTool,
	askQuestionTool,
	switchModeTool,
	createPlanTool,
	taskTool,
	callMcpTool,
	webSearchTool,
	webFetchTool,
	fetchRulesTool,
	editNotebookTool,
	backgroundShellTool,
	writeShellStdinTool,
	awaitTool,
	getMcpToolsTool,
	listMcpResourcesTool,
	fetchMcpResourceTool,
	mcpAuthTool,
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
	userModes = []string{modeAgent, modeDebug, modeMultitask, modeAsk, modePlan}
)
