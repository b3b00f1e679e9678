package ports

// Stores are the store ports of one store, as the composition root hands
// them out.
type Stores struct {
	Conversations  ConversationStore
	Runs           RunStore
	ToolRounds     ToolRoundStore
	Blobs          BlobStore
	Settings       SettingStore
	ModelConfigs   ModelConfigStore
	Providers      ProviderStore
	Aliases        AliasStore
	RouteHealth    RouteHealth
	RouteAffinity  RouteAffinity
	RateWindows    RateWindows
	Calls          CallRecorder
	ContextAnchors ContextAnchorStore
	Prompts        PromptStore
	// Eraser deletes whole conversations; nil for a store without it
	// (the engine's in-memory store).
	Eraser ConversationEraser
}
