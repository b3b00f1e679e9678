package tools

import (
	"encoding/json"
	"sort"
)

// RegisteredTool describes one registry entry to the specs.
type RegisteredTool struct {
	Name    string
	Aliases []string
	Modes   []string
	Web     bool
	Awaits  bool
	// Runs is where the tool's steps run ("on the client", "with the user",
	// "on the server").
	Runs                                                                  string
	Start, OnExec, OnStreamClose, OnInteraction, OnWeb, OnTask, Described bool
	// Schema is the tool's catalog.json parameters.
	Schema json.RawMessage
}

// Registry returns the registry in order.
func Registry() []RegisteredTool {
	out := make([]RegisteredTool, 0, len(registry))
	for _, t := range registry {
		e, described := catalog[t.name]
		r := RegisteredTool{Name: t.name, Aliases: t.aliases, Modes: t.modes, Web: t.web != notWeb, Awaits: t.awaits, Runs: runsName[t.runs],
			Described: described && e.Description != "", Schema: e.Parameters}
		h := t.open()
		r.Start = h != nil
		_, r.OnExec = h.(execHandler)
		_, r.OnStreamClose = h.(streamCloser)
		_, r.OnInteraction = h.(interactionHandler)
		_, r.OnWeb = h.(webHandler)
		_, r.OnTask = h.(taskHandler)
		out = append(out, r)
	}
	return out
}

// CatalogNames returns the tool names catalog.json describes, sorted.
func CatalogNames() []string {
	names := make([]string, 0, len(catalog))
	for n := range catalog {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var runsName = map[runs]string{onClient: "on the client", withUser: "with the user", onServer: "on the server"}
