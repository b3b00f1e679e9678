package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"keygate/domain/callrecord"
	"keygate/domain/identity"
	"keygate/ports"
)

// Feature is a Cursor feature served on a model the administrator
// chooses apart from the Agent's picker.
type Feature string

// The features with a model setting of their own.
const (
	// FeatureTab is Cursor Tab (next-edit suggestions).
	FeatureTab Feature = "tab"
	// FeatureEdit is the inline edit (Cmd-K) in the editor and terminal.
	FeatureEdit Feature = "cmdk"
	// FeatureCommit is commit messages and branch names.
	FeatureCommit Feature = "commit"
)

// Features lists every feature, in the console's order.
var Features = []Feature{FeatureTab, FeatureEdit, FeatureCommit}

// setting is the name of f's setting: {"model": id}; an empty id turns
// the feature off even when the configuration or a default names a model.
func (f Feature) setting() string { return string(f) + "_model" }

// modelFresh is how long a replica answers a feature's model from memory.
// Tab asks on nearly every keystroke pause, so a store read each time
// would cost more than the suggestion's prompt; a change made on another
// replica is seen within this bound.
const modelFresh = 2 * time.Second

// FeatureModelOptions are the dependencies of [FeatureModel].
type FeatureModelOptions struct {
	// Feature is the feature whose model this is; empty means FeatureTab.
	Feature  Feature
	Settings ports.SettingStore
	Models   ports.ModelConfigStore
	// Aliases holds the aliases; nil for none.
	Aliases ports.AliasStore
	// Configured is the model the configuration names (--tab-model,
	// --cmdk-model, --commit-model: a display name or id); it serves the
	// feature until the setting is saved.
	Configured string
	// Default, when set, names the model for the caller on ctx when
	// neither the setting nor the configuration names one ("" for none);
	// nil: the feature is then off.
	Default func(ctx context.Context) (string, error)
	// DefaultRule says in words what Default picks, for the console ("" for none).
	DefaultRule string
	// Now is the clock; nil for time.Now.
	Now func() time.Time
}

// FeatureModel is which model or alias serves a feature: the console's
// setting once saved, else the configuration's, else the default. A name
// resolves to the enabled model or alias whose id or display name it is.
// It is safe for concurrent use.
type FeatureModel struct {
	o FeatureModelOptions

	mu     sync.Mutex
	cached FeatureChoice
	at     time.Time
}

// FeatureChoice is the model in force for a feature and where it comes
// from.
type FeatureChoice struct {
	// ID is the model or alias id; empty when the setting and the
	// configuration name none (a default may still serve the feature).
	ID string
	// DisplayName is the model's or alias's name in Cursor's picker.
	DisplayName string
	// Source is "setting" (saved in the console), "configuration" (the
	// command-line flag or its environment variable) or "" when neither
	// names a model.
	Source string
	// Problem says why a configured name serves nothing (no enabled model
	// or alias has it); empty otherwise.
	Problem string
}

// The Tab model is the first feature model; these names keep its callers.
type (
	// TabModelOptions are a FeatureModel's options.
	TabModelOptions = FeatureModelOptions
	// TabModel is the Cursor Tab FeatureModel.
	TabModel = FeatureModel
	// TabChoice is a FeatureChoice.
	TabChoice = FeatureChoice
)

// NewTabModel returns the Tab model use case.
func NewTabModel(o TabModelOptions) *TabModel {
	o.Feature = FeatureTab
	return NewFeatureModel(o)
}

// NewFeatureModel returns the model use case of o.Feature.
func NewFeatureModel(o FeatureModelOptions) *FeatureModel {
	if o.Feature == "" {
		o.Feature = FeatureTab
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &FeatureModel{o: o}
}

// Feature is the feature this model serves.
func (t *FeatureModel) Feature() Feature { return t.o.Feature }

// DefaultRule says in words what serves the feature while neither the
// setting nor the configuration names a model; "" when nothing does.
func (t *FeatureModel) DefaultRule() string { return t.o.DefaultRule }

// Current returns the feature's model id for the caller on ctx, "" when
// the feature is not served here: the setting's or the configuration's
// model, else the default's when neither names one. The setting is read
// from the store at most every couple of seconds.
func (t *FeatureModel) Current(ctx context.Context) (string, error) {
	c, err := t.Choice(ctx)
	if err != nil || c.ID != "" || c.Source != "" || t.o.Default == nil {
		return c.ID, err
	}
	id, err := t.o.Default(ctx)
	if err != nil {
		return "", fmt.Errorf("default %s model: %w", t.o.Feature, err)
	}
	return id, nil
}

// Choice returns the model the setting or the configuration names, with
// its source.
func (t *FeatureModel) Choice(ctx context.Context) (FeatureChoice, error) {
	now := t.o.Now()
	t.mu.Lock()
	if !t.at.IsZero() && now.Sub(t.at) < modelFresh {
		c := t.cached
		t.mu.Unlock()
		return c, nil
	}
	t.mu.Unlock()
	c, err := t.load(ctx)
	if err != nil {
		return FeatureChoice{}, err
	}
	t.mu.Lock()
	t.cached, t.at = c, now
	t.mu.Unlock()
	return c, nil
}

// load reads the setting and resolves what it, or the configuration, names.
func (t *FeatureModel) load(ctx context.Context) (FeatureChoice, error) {
	raw, err := t.o.Settings.Setting(ctx, t.o.Feature.setting())
	switch {
	case err == nil:
		var v struct {
			Model string `json:"model"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return FeatureChoice{}, fmt.Errorf("decode setting %s: %w", t.o.Feature.setting(), err)
		}
		if v.Model == "" {
			return FeatureChoice{Source: "setting"}, nil
		}
		return t.resolved(ctx, v.Model, "setting")
	case errors.Is(err, ports.ErrNotFound):
		if t.o.Configured == "" {
			return FeatureChoice{}, nil
		}
		return t.resolved(ctx, t.o.Configured, "configuration")
	default:
		return FeatureChoice{}, fmt.Errorf("read setting %s: %w", t.o.Feature.setting(), err)
	}
}

// resolved is the choice of name from source; a name that names nothing
// enabled serves nothing and says why.
func (t *FeatureModel) resolved(ctx context.Context, name, source string) (FeatureChoice, error) {
	e, err := t.resolve(ctx, name)
	var inv *InvalidError
	if errors.As(err, &inv) {
		return FeatureChoice{Source: source, Problem: inv.Reason}, nil
	}
	if err != nil {
		return FeatureChoice{}, err
	}
	return FeatureChoice{ID: e.id, DisplayName: e.display, Source: source}, nil
}

// Set saves the feature's model: name is a model or alias id or display
// name, or "" to turn the feature off. It returns the choice now in force.
func (t *FeatureModel) Set(ctx context.Context, name string) (FeatureChoice, error) {
	name = strings.TrimSpace(name)
	if err := checkText(t.o.Feature.setting(), name, MaxModelID); err != nil {
		return FeatureChoice{}, err
	}
	id := ""
	if name != "" {
		e, err := t.resolve(ctx, name)
		if err != nil {
			return FeatureChoice{}, err
		}
		id = e.id
	}
	raw, err := json.Marshal(struct {
		Model string `json:"model"`
	}{id})
	if err != nil {
		return FeatureChoice{}, fmt.Errorf("encode setting %s: %w", t.o.Feature.setting(), err)
	}
	if err := t.o.Settings.PutSetting(ctx, t.o.Feature.setting(), raw); err != nil {
		return FeatureChoice{}, fmt.Errorf("store setting %s: %w", t.o.Feature.setting(), err)
	}
	t.mu.Lock()
	t.at = time.Time{}
	t.mu.Unlock()
	return t.Choice(ctx)
}

// Reset forgets the saved setting, so the configuration's model (or the
// default) serves the feature again.
func (t *FeatureModel) Reset(ctx context.Context) (FeatureChoice, error) {
	if err := t.o.Settings.DeleteSetting(ctx, t.o.Feature.setting()); err != nil && !errors.Is(err, ports.ErrNotFound) {
		return FeatureChoice{}, fmt.Errorf("delete setting %s: %w", t.o.Feature.setting(), err)
	}
	t.mu.Lock()
	t.at = time.Time{}
	t.mu.Unlock()
	return t.Choice(ctx)
}

// tabEntry is a model or alias a feature may name.
type tabEntry struct{ id, display string }

// resolve finds the enabled model or alias that name is the id or the
// display name of (case-insensitively); a name two of them share is
// refused rather than guessed.
func (t *FeatureModel) resolve(ctx context.Context, name string) (tabEntry, error) {
	cfgs, err := t.o.Models.ModelConfigs(ctx)
	if err != nil {
		return tabEntry{}, fmt.Errorf("list models: %w", err)
	}
	var all []tabEntry
	for _, c := range cfgs {
		if c.Enabled {
			all = append(all, tabEntry{c.ID, c.DisplayName})
		}
	}
	if t.o.Aliases != nil {
		as, err := t.o.Aliases.Aliases(ctx)
		if err != nil {
			return tabEntry{}, fmt.Errorf("list aliases: %w", err)
		}
		for _, a := range as {
			if a.Enabled {
				all = append(all, tabEntry{a.ID, a.DisplayName})
			}
		}
	}
	for _, e := range all {
		if e.id == name {
			return e, nil
		}
	}
	var found []tabEntry
	for _, e := range all {
		if strings.EqualFold(e.display, name) {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return tabEntry{}, invalid(t.o.Feature.setting(), fmt.Sprintf("no enabled model or alias is named %q", name))
	default:
		return tabEntry{}, invalid(t.o.Feature.setting(), fmt.Sprintf("%d models or aliases are named %q; give the id", len(found), name))
	}
}

// FirstPublished is a feature default: the first model Cursor's picker
// offers (a chat model; fill-in-the-middle models are never published),
// "" when none is.
func FirstPublished(pb *Publishing) func(ctx context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		pub, err := pb.Published(ctx)
		if err != nil || len(pub) == 0 {
			return "", err
		}
		return pub[0].ID, nil
	}
}

// LastAgentModel is a feature default: the model or alias of the caller's
// most recent Agent call while it is still published (the model they
// chose in the picker last, one indexed read of the call records), else
// the first published model.
func LastAgentModel(calls ports.CallLister, pb *Publishing) func(ctx context.Context) (string, error) {
	first := FirstPublished(pb)
	return func(ctx context.Context) (string, error) {
		who, ok := identity.FromContext(ctx)
		if !ok || who.UserID == "" {
			return first(ctx)
		}
		recs, err := calls.CallRecords(ctx, ports.CallQuery{UserID: who.UserID, Kind: callrecord.KindAgent, Limit: 1})
		if err != nil {
			return "", fmt.Errorf("read the last agent call: %w", err)
		}
		if len(recs) == 0 || recs[0].Route.ID == "" {
			return first(ctx)
		}
		pub, err := pb.Published(ctx)
		if err != nil {
			return "", err
		}
		for _, m := range pub {
			if m.ID == recs[0].Route.ID {
				return m.ID, nil
			}
		}
		if len(pub) == 0 {
			return "", nil
		}
		return pub[0].ID, nil
	}
}

// FeatureModels are the model settings of every feature, for the control
// API and the composition root.
type FeatureModels struct {
	Tab, Edit, Commit *FeatureModel
}

// Of returns f's model, nil for an unknown feature or one not wired.
func (fm *FeatureModels) Of(f Feature) *FeatureModel {
	if fm == nil {
		return nil
	}
	switch f {
	case FeatureTab:
		return fm.Tab
	case FeatureEdit:
		return fm.Edit
	case FeatureCommit:
		return fm.Commit
	}
	return nil
}
