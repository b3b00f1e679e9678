package app

import (
	"go.uber.org/zap"

	appcmdk "keygate/app/cmdk"
	appcontrol "keygate/app/control"
	"keygate/ports"
)

// NewCmdK is the use case of inline edits (Cmd-K) and of commit messages
// and branch names: each a routed call, of kind cmdk or commit, through
// the same provider chain as Agent turns (routing, key pools, failover,
// budgets, call records, metrics, traces), on the feature's model from the
// console, the configuration or its default. The catalog refuses a
// fill-in-the-middle model, which cannot follow an instruction.
func NewCmdK(mp ports.ModelProvider, catalog *appcontrol.Catalog, models *appcontrol.FeatureModels, logger *zap.Logger) *appcmdk.Service {
	return appcmdk.New(appcmdk.Options{
		Provider:    mp,
		Endpoints:   catalog,
		EditModel:   models.Edit.Current,
		CommitModel: models.Commit.Current,
		Log:         logger.Named("cmdk"),
	})
}
