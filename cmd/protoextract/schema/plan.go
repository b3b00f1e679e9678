package schema

// Plan says what to extract from one schema file: which definitions to keep
// and which services to declare.
type Plan struct {
	Package string // the input file's package; a plan applies to that file only
	Output  string // output path relative to the output root, matching Package

	// KeepAll keeps every definition of the input. Otherwise only Roots, the
	// request and response types of Services, and everything they reference
	// transitively are kept.
	KeepAll bool
	Roots   []string // names relative to Package

	Services []ServicePlan
}

// ServicePlan is a service and the methods Keygate answers. Methods missing
// from the input's service block are declared from the plan; methods present
// there must agree with the plan.
type ServicePlan struct {
	Name    string
	Methods []Method
}

// KeygatePlans returns the plans for the two Cursor client schema files:
// all of agent.v1, and the part of aiserver.v1 that the server answers.
// The method list is the route list of docs/cursor-protocol.md, "Routes
// Keygate serves", with the stream kind of each route: the Agent's routes
// and, for Cursor Tab (docs/cursor-protocol.md, "Cursor Tab"), StreamCpp,
// CppConfig and their companions on AiService, and CppService, which has
// no service block in the client's schema (its AvailableModels and
// RecordCppFate are declared here, on the schema's AvailableCppModels* and
// RecordCppFate* messages).
func KeygatePlans() []Plan {
	unary := func(name, in, out string) Method { return Method{Name: name, Input: in, Output: out} }
	serverStream := func(name, in, out string) Method {
		return Method{Name: name, Input: in, Output: out, ServerStream: true}
	}
	return []Plan{
		{
			Package: "agent.v1",
			Output:  "agent/v1/agent.proto",
			KeepAll: true,
			Services: []ServicePlan{{
				Name: "AgentService",
				Methods: []Method{
					{Name: "Run", Input: "AgentClientMessage", Output: "AgentServerMessage", ClientStream: true, ServerStream: true},
					{Name: "RunSSE", Input: "BidiRequestId", Output: "AgentServerMessage", ServerStream: true},
					unary("GetUsableModels", "GetUsableModelsRequest", "GetUsableModelsResponse"),
					unary("GetDefaultModelForCli", "GetDefaultModelForCliRequest", "GetDefaultModelForCliResponse"),
					unary("UpdateConversationMetadata", "UpdateConversationMetadataRequest", "UpdateConversationMetadataResponse"),
					// The CLI's model routes (docs/cursor-protocol.md, "The CLI").
					unary("GetAllowedModelIntents", "GetAllowedModelIntentsRequest", "GetAllowedModelIntentsResponse"),
					unary("GetNewChatNudgeLegacyModelPicker", "GetNewChatNudgeLegacyModelPickerRequest", "GetNewChatNudgeLegacyModelPickerResponse"),
					unary("GetNewChatNudgeParameterizedModelPicker", "GetNewChatNudgeParameterizedModelPickerRequest", "GetNewChatNudgeParameterizedModelPickerResponse"),
				},
			}},
		},
		{
			Package: "aiserver.v1",
			Output:  "aiserver/v1/aiserver.proto",
			Roots: []string{
				"BidiRequestId",
				"ErrorDetails", "CustomErrorDetails",
			},
			Services: []ServicePlan{
				{Name: "AiService", Methods: []Method{
					unary("ServerTime", "ServerTimeRequest", "ServerTimeResponse"),
					unary("GetServerConfig", "GetServerConfigRequest", "GetServerConfigResponse"),
					unary("AvailableModels", "AvailableModelsRequest", "AvailableModelsResponse"),
					unary("GetUsableModels", "GetUsableModelsRequest", "GetUsableModelsResponse"),
					unary("GetDefaultModel", "GetDefaultModelRequest", "GetDefaultModelResponse"),
					unary("GetDefaultModelNudgeData", "GetDefaultModelNudgeDataRequest", "GetDefaultModelNudgeDataResponse"),
					unary("GetDefaultModelForCli", "GetDefaultModelForCliRequest", "GetDefaultModelForCliResponse"),
					serverStream("StreamCpp", "StreamCppRequest", "StreamCppResponse"),
					unary("CppConfig", "CppConfigRequest", "CppConfigResponse"),
					unary("CppEditHistoryStatus", "CppEditHistoryStatusRequest", "CppEditHistoryStatusResponse"),
					unary("CppAppend", "CppAppendRequest", "CppAppendResponse"),
					unary("RefreshTabContext", "RefreshTabContextRequest", "RefreshTabContextResponse"),
					serverStream("StreamNextCursorPrediction", "StreamNextCursorPredictionRequest", "StreamNextCursorPredictionResponse"),
					unary("GetCppEditClassification", "GetCppEditClassificationRequest", "GetCppEditClassificationResponse"),
					unary("CppEditHistoryAppend", "EditHistoryAppendChangesRequest", "EditHistoryAppendChangesResponse"),
					unary("WriteGitCommitMessage", "WriteGitCommitMessageRequest", "WriteGitCommitMessageResponse"),
					unary("WriteGitBranchName", "WriteGitBranchNameRequest", "WriteGitBranchNameResponse"),
					unary("ReportCmdKFate", "ReportCmdKFateRequest", "ReportCmdKFateResponse"),
					// Memories (docs/cursor-protocol.md, "Memories").
					unary("KnowledgeBaseAdd", "KnowledgeBaseAddRequest", "KnowledgeBaseAddResponse"),
					unary("KnowledgeBaseList", "KnowledgeBaseListRequest", "KnowledgeBaseListResponse"),
					unary("KnowledgeBaseUpdate", "KnowledgeBaseUpdateRequest", "KnowledgeBaseUpdateResponse"),
					unary("KnowledgeBaseRemove", "KnowledgeBaseRemoveRequest", "KnowledgeBaseRemoveResponse"),
				}},
				{Name: "CmdKService", Methods: []Method{
					serverStream("StreamCmdK", "StreamCmdKRequest", "StreamCmdKResponseContextWrapped"),
					serverStream("StreamTerminalCmdK", "StreamTerminalCmdKRequest", "StreamTerminalCmdKResponseContextWrapped"),
					unary("RerankCmdKContext", "RerankCmdKContextRequest", "RerankCmdKContextResponse"),
					unary("RerankTerminalCmdKContext", "RerankTerminalCmdKContextRequest", "RerankTerminalCmdKContextResponse"),
					serverStream("GetRelevantChunks", "GetRelevantChunksRequest", "StreamGetRelevantChunksResponseContextWrapped"),
				}},
				{Name: "CppService", Methods: []Method{
					unary("AvailableModels", "AvailableCppModelsRequest", "AvailableCppModelsResponse"),
					unary("RecordCppFate", "RecordCppFateRequest", "RecordCppFateResponse"),
				}},
				{Name: "BidiService", Methods: []Method{
					unary("BidiAppend", "BidiAppendRequest", "BidiAppendResponse"),
				}},
				{Name: "ServerConfigService", Methods: []Method{
					unary("GetServerConfig", "GetServerConfigRequest", "GetServerConfigResponse"),
				}},
				{Name: "NetworkService", Methods: []Method{
					unary("IsConnected", "IsConnectedRequest", "IsConnectedResponse"),
				}},
			},
		},
	}
}

// roots lists every definition name the plan needs directly: its Roots and
// the input and output of each planned method, in plan order.
func (p Plan) roots() []string {
	names := append([]string(nil), p.Roots...)
	for _, s := range p.Services {
		for _, m := range s.Methods {
			names = append(names, m.Input, m.Output)
		}
	}
	return names
}
