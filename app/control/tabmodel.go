package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"keygate/ports"
)

// settingTabModel holds the Tab model setting: {"model": id}; an empty id
// turns Tab off even when the configuration names a model.
const settingTabModel = "tab_model"

// tabModelFresh is how long a replica answers the Tab model from memory.
// Tab asks on nearly every keystroke pause, so a store read each time
// would cost more than the suggestion's prompt; a change made on another
// replica is seen within this bound.
const tabModelFresh = 2 * time.Second

// TabModelOptions are the dependencies of [TabModel].
type TabModelOptions struct {
	Settings ports.SettingStore
	Models   ports.ModelConfigStore
	// Aliases holds the aliases; nil for none.
	Aliases ports.AliasStore
	// Configured is the model the configuration names (KEYGATE_TAB_MODEL,
	// a display name or id); it serves Tab until the setting is saved.
	Configured string
	// Now is the clock; nil for time.Now.
	Now func() time.Time
}

// TabModel is which model or alias serves Cursor Tab: the console's
// setting once saved, else the configuration's. A name resolves to the
// enabled model or alias whose id or display name it is. It is safe for
// concurrent use.
type TabModel struct {
	o TabModelOptions

	mu     sync.Mutex
	cached TabChoice
	at     time.Time
}

// TabChoice is the Tab model in force and where it comes from.
type TabChoice struct {
	// ID is the model or alias id; empty when Keygate serves no Tab.
	ID string
	// DisplayName is the model's or alias's name in Cursor's picker.
	DisplayName string
	// Source is "setting" (saved in the console), "configuration"
	// (KEYGATE_TAB_MODEL) or "" when neither names a model.
	Source string
	// Problem says why a configured name serves nothing (no enabled model
	// or alias has it); empty otherwise.
	Problem string
}

// NewTabModel returns the Tab model use case.
func NewTabModel(o TabModelOptions) *TabModel {
	if o.Now == nil {
		o.Now = time.Now
	}
	return &TabModel{o: o}
}

// Current returns the Tab model id, "" when Tab is not served here. It is
// read from the store at most every couple of seconds.
func (t *TabModel) Current(ctx context.Context) (string, error) {
	c, err := t.Choice(ctx)
	return c.ID, err
}

// Choice returns the Tab model in force with its source.
func (t *TabModel) Choice(ctx context.Context) (TabChoice, error) {
	now := t.o.Now()
	t.mu.Lock()
	if !t.at.IsZero() && now.Sub(t.at) < tabModelFresh {
		c := t.cached
		t.mu.Unlock()
		return c, nil
	}
	t.mu.Unlock()
	c, err := t.load(ctx)
	if err != nil {
		return TabChoice{}, err
	}
	t.mu.Lock()
	t.cached, t.at = c, now
	t.mu.Unlock()
	return c, nil
}

// load reads the setting and resolves what it, or the configuration, names.
func (t *TabModel) load(ctx context.Context) (TabChoice, error) {
	raw, err := t.o.Settings.Setting(ctx, settingTabModel)
	switch {
	case err == nil:
		var v struct {
			Model string `json:"model"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			return TabChoice{}, fmt.Errorf("decode setting %s: %w", settingTabModel, err)
		}
		if v.Model == "" {
			return TabChoice{Source: "setting"}, nil
		}
		return t.resolved(ctx, v.Model, "setting")
	case errors.Is(err, ports.ErrNotFound):
		if t.o.Configured == "" {
			return TabChoice{}, nil
		}
		return t.resolved(ctx, t.o.Configured, "configuration")
	default:
		return TabChoice{}, fmt.Errorf("read setting %s: %w", settingTabModel, err)
	}
}

// resolved is the choice of name from source; a name that names nothing
// enabled serves no Tab and says why.
func (t *TabModel) resolved(ctx context.Context, name, source string) (TabChoice, error) {
	e, err := t.resolve(ctx, name)
	var inv *InvalidError
	if errors.As(err, &inv) {
		return TabChoice{Source: source, Problem: inv.Reason}, nil
	}
	if err != nil {
		return TabChoice{}, err
	}
	return TabChoice{ID: e.id, DisplayName: e.display, Source: source}, nil
}

// Set saves the Tab model: name is a model or alias id or display name,
// or "" to serve no Tab. It returns the choice now in force.
func (t *TabModel) Set(ctx context.Context, name string) (TabChoice, error) {
	name = strings.TrimSpace(name)
	if err := checkText("tab_model", name, MaxModelID); err != nil {
		return TabChoice{}, err
	}
	id := ""
	if name != "" {
		e, err := t.resolve(ctx, name)
		if err != nil {
			return TabChoice{}, err
		}
		id = e.id
	}
	raw, err := json.Marshal(struct {
		Model string `json:"model"`
	}{id})
	if err != nil {
		return TabChoice{}, fmt.Errorf("encode setting %s: %w", settingTabModel, err)
	}
	if err := t.o.Settings.PutSetting(ctx, settingTabModel, raw); err != nil {
		return TabChoice{}, fmt.Errorf("store setting %s: %w", settingTabModel, err)
	}
	t.mu.Lock()
	t.at = time.Time{}
	t.mu.Unlock()
	return t.Choice(ctx)
}

// Reset forgets the saved setting, so the configuration's model serves
// Tab again.
func (t *TabModel) Reset(ctx context.Context) (TabChoice, error) {
	if err := t.o.Settings.DeleteSetting(ctx, settingTabModel); err != nil && !errors.Is(err, ports.ErrNotFound) {
		return TabChoice{}, fmt.Errorf("delete setting %s: %w", settingTabModel, err)
	}
	t.mu.Lock()
	t.at = time.Time{}
	t.mu.Unlock()
	return t.Choice(ctx)
}

// tabEntry is a model or alias Tab may name.
type tabEntry struct{ id, display string }

// resolve finds the enabled model or alias that name is the id or the
// display name of (case-insensitively); a name two of them share is
// refused rather than guessed.
func (t *TabModel) resolve(ctx context.Context, name string) (tabEntry, error) {
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
		return tabEntry{}, invalid("tab_model", fmt.Sprintf("no enabled model or alias is named %q", name))
	default:
		return tabEntry{}, invalid("tab_model", fmt.Sprintf("%d models or aliases are named %q; give the id", len(found), name))
	}
}
