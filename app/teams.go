package app

import (
	"keygate/adapters/auth"
	"keygate/adapters/relstore"
	"keygate/app/company"
	"keygate/app/teams"
)

// NewTeams is the teams use case in company mode (docs/teams.md): the
// groups an administrator marked as teams, every write audited, and the
// charged team and model access of each user. A laptop install (one local
// user) has no teams: nil, and every model stays allowed.
func NewTeams(gate *auth.Gate, store *relstore.Store, auditor *company.Auditor) *teams.Service {
	if gate.Mode() == auth.ModeLocal {
		return nil
	}
	t := teams.New(auditor.Teams(store.Teams()), store.Memberships(), store.Teams())
	t.CheckModelsWith(store.Stores().ModelConfigs, store.Routing())
	return t
}
