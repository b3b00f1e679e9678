package company

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"keygate/domain/access"
	"keygate/domain/identity"
	"keygate/ports"
)

// System is the actor of changes no signed-in user made (a command such
// as `keygate secret rotate`, a migration).
var System = access.Principal{Identity: identity.Identity{UserID: "system", Name: "Keygate"}, Role: "system"}

// actor is the principal on ctx, or System.
func actor(ctx context.Context) access.Principal {
	if p, ok := access.FromContext(ctx); ok {
		return p
	}
	return System
}

// ModelConfigs wraps next so that every configuration written or deleted
// is audited as model.put / model.delete with its state before and after
// (the sealed key masked). The actor is the principal on the context (see
// adapters/auth), or System. A change that was made but could not be
// audited returns the audit error.
func (a *Auditor) ModelConfigs(next ports.ModelConfigStore) ports.ModelConfigStore {
	return auditedModels{ModelConfigStore: next, a: a}
}

type auditedModels struct {
	ports.ModelConfigStore
	a *Auditor
}

func (m auditedModels) PutModelConfig(ctx context.Context, cfg ports.ModelConfig) error {
	before, err := m.previous(ctx, cfg.ID)
	if err != nil {
		return err
	}
	if err := m.ModelConfigStore.PutModelConfig(ctx, cfg); err != nil {
		return err
	}
	return m.a.Record(ctx, actor(ctx), "model.put", cfg.ID, before, cfg)
}

func (m auditedModels) DeleteModelConfig(ctx context.Context, id string) error {
	before, err := m.previous(ctx, id)
	if err != nil {
		return err
	}
	if err := m.ModelConfigStore.DeleteModelConfig(ctx, id); err != nil {
		return err
	}
	return m.a.Record(ctx, actor(ctx), "model.delete", id, before, nil)
}

// previous is the stored configuration, or nil (not a typed nil) when
// there is none.
func (m auditedModels) previous(ctx context.Context, id string) (any, error) {
	cfg, err := m.ModelConfig(ctx, id)
	if errors.Is(err, ports.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit model %s: %w", id, err)
	}
	return cfg, nil
}

// Providers wraps next so that every provider written or deleted is
// audited as provider.put / provider.delete, and every key enabled or
// disabled on its own (by the router, for one) as provider.key_enabled,
// each with the provider's state before and after (keys masked), like
// ModelConfigs.
func (a *Auditor) Providers(next ports.ProviderStore) ports.ProviderStore {
	return auditedProviders{ProviderStore: next, a: a}
}

type auditedProviders struct {
	ports.ProviderStore
	a *Auditor
}

func (p auditedProviders) PutProvider(ctx context.Context, prov ports.Provider) error {
	before, err := p.previous(ctx, prov.ID)
	if err != nil {
		return err
	}
	if err := p.ProviderStore.PutProvider(ctx, prov); err != nil {
		return err
	}
	return p.a.Record(ctx, actor(ctx), "provider.put", prov.ID, before, prov)
}

func (p auditedProviders) SetKeyEnabled(ctx context.Context, providerID, keyID string, enabled bool, reason string) error {
	before, err := p.previous(ctx, providerID)
	if err != nil {
		return err
	}
	if err := p.ProviderStore.SetKeyEnabled(ctx, providerID, keyID, enabled, reason); err != nil {
		return err
	}
	after, err := p.previous(ctx, providerID)
	if err != nil {
		return err
	}
	return p.a.Record(ctx, actor(ctx), "provider.key_enabled", providerID+"/"+keyID, before, after)
}

func (p auditedProviders) DeleteProvider(ctx context.Context, id string) error {
	before, err := p.previous(ctx, id)
	if err != nil {
		return err
	}
	if err := p.ProviderStore.DeleteProvider(ctx, id); err != nil {
		return err
	}
	return p.a.Record(ctx, actor(ctx), "provider.delete", id, before, nil)
}

// previous is the stored provider, or nil (not a typed nil) when there is
// none.
func (p auditedProviders) previous(ctx context.Context, id string) (any, error) {
	prov, err := p.Provider(ctx, id)
	if errors.Is(err, ports.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit provider %s: %w", id, err)
	}
	return prov, nil
}

// Aliases wraps next so that every alias written or deleted is audited as
// alias.put / alias.delete, like ModelConfigs.
func (a *Auditor) Aliases(next ports.AliasStore) ports.AliasStore {
	return auditedAliases{AliasStore: next, a: a}
}

type auditedAliases struct {
	ports.AliasStore
	a *Auditor
}

func (s auditedAliases) PutAlias(ctx context.Context, al ports.Alias) error {
	before, err := s.previous(ctx, al.ID)
	if err != nil {
		return err
	}
	if err := s.AliasStore.PutAlias(ctx, al); err != nil {
		return err
	}
	return s.a.Record(ctx, actor(ctx), "alias.put", al.ID, before, al)
}

func (s auditedAliases) DeleteAlias(ctx context.Context, id string) error {
	before, err := s.previous(ctx, id)
	if err != nil {
		return err
	}
	if err := s.AliasStore.DeleteAlias(ctx, id); err != nil {
		return err
	}
	return s.a.Record(ctx, actor(ctx), "alias.delete", id, before, nil)
}

func (s auditedAliases) previous(ctx context.Context, id string) (any, error) {
	al, err := s.Alias(ctx, id)
	if errors.Is(err, ports.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit alias %s: %w", id, err)
	}
	return al, nil
}

// Settings wraps next so that every setting written or deleted is audited
// as setting.put / setting.delete, like ModelConfigs.
func (a *Auditor) Settings(next ports.SettingStore) ports.SettingStore {
	return auditedSettings{SettingStore: next, a: a}
}

type auditedSettings struct {
	ports.SettingStore
	a *Auditor
}

func (s auditedSettings) PutSetting(ctx context.Context, name string, value json.RawMessage) error {
	before, err := s.previous(ctx, name)
	if err != nil {
		return err
	}
	if err := s.SettingStore.PutSetting(ctx, name, value); err != nil {
		return err
	}
	return s.a.Record(ctx, actor(ctx), "setting.put", name, before, value)
}

func (s auditedSettings) DeleteSetting(ctx context.Context, name string) error {
	before, err := s.previous(ctx, name)
	if err != nil {
		return err
	}
	if err := s.SettingStore.DeleteSetting(ctx, name); err != nil {
		return err
	}
	return s.a.Record(ctx, actor(ctx), "setting.delete", name, before, nil)
}

func (s auditedSettings) previous(ctx context.Context, name string) (any, error) {
	v, err := s.Setting(ctx, name)
	if errors.Is(err, ports.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit setting %s: %w", name, err)
	}
	return v, nil
}
