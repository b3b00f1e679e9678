package relstore

import (
	"bytes"
	"context"
	"sync"
	"time"

	"keygate/ports"
)

// configCache keeps the model configurations (with their providers' fields
// joined in) and the providers (with their keys, sealed) in memory: a turn,
// a Tab request and a compatible-API call read them several times each, and
// they change only when an administrator edits them or a key is disabled.
// Each list is filled by its first read and both are dropped by every
// change: a write through this store (watchedEngine), or, on an engine
// several processes share, a change another process made (ConfigChanged,
// from the engine's notifications). While such an engine cannot hear
// changes (Watching(false)) the cache is not used and every read goes to
// the database.
type configCache struct {
	mu sync.Mutex
	// on is whether reads may be served from memory.
	on bool
	// gen counts changes; a read stores what it loaded only if no change
	// happened while it read, so a load that raced a write is not kept.
	gen       uint64
	models    cachedList[ports.ModelConfig]
	providers cachedList[ports.Provider]
}

// cachedList is one cached list and its positions by id; list is nil when
// nothing is cached.
type cachedList[T any] struct {
	list []T
	byID map[string]int
	// loaded is when list was loaded; the list is dropped after
	// configMaxAge even when no change was heard, a bound on what a lost
	// notification costs.
	loaded time.Time
}

// configMaxAge bounds how long a cached list is served without a change
// being heard.
const configMaxAge = time.Minute

// serving reports whether reads may be served from memory.
func (c *configCache) serving() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.on
}

// cached returns l's list (shared: callers copy what they hand out) and
// true, or the generation a load must carry to be stored.
func cached[T any](c *configCache, l *cachedList[T], now time.Time) ([]T, map[string]int, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.on && l.list != nil && now.Sub(l.loaded) < configMaxAge {
		return l.list, l.byID, c.gen, true
	}
	return nil, nil, c.gen, false
}

// keep stores a copy of list in l when no change happened since gen was
// read, and returns the positions of list's elements by id.
func keep[T any](c *configCache, l *cachedList[T], gen uint64, list []T, id func(T) string, clone func(T) T, now time.Time) map[string]int {
	byID := make(map[string]int, len(list))
	for i, v := range list {
		byID[id(v)] = i
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on || c.gen != gen {
		return byID
	}
	l.list = make([]T, len(list))
	for i, v := range list {
		l.list[i] = clone(v)
	}
	l.byID, l.loaded = byID, now
	return byID
}

// changed drops the cache.
func (c *configCache) changed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.models, c.providers = cachedList[ports.ModelConfig]{}, cachedList[ports.Provider]{}
}

// watching turns serving from memory on or off; either way what is cached
// is dropped (a change may have been missed while off).
func (c *configCache) watching(on bool) {
	c.mu.Lock()
	c.on = on
	c.mu.Unlock()
	c.changed()
}

// cloneConfigs copies configurations deeply enough that a caller changing
// what it got (a slice element, a JSON field's bytes) changes no other
// caller's copy.
func cloneConfigs(in []ports.ModelConfig) []ports.ModelConfig {
	out := make([]ports.ModelConfig, len(in))
	for i, m := range in {
		out[i] = cloneConfig(m)
	}
	return out
}

func cloneConfig(m ports.ModelConfig) ports.ModelConfig {
	if m.CustomHeaders != nil {
		m.CustomHeaders = bytes.Clone(m.CustomHeaders)
	}
	if m.ExtraParams != nil {
		m.ExtraParams = bytes.Clone(m.ExtraParams)
	}
	return m
}

func cloneProvider(p ports.Provider) ports.Provider {
	p.SealedHeaders = bytes.Clone(p.SealedHeaders)
	if p.ClearHeaders != nil {
		p.ClearHeaders = bytes.Clone(p.ClearHeaders)
	}
	if p.Keys != nil {
		keys := make([]ports.ProviderKey, len(p.Keys))
		for i, k := range p.Keys {
			k.Sealed = bytes.Clone(k.Sealed)
			keys[i] = k
		}
		p.Keys = keys
	}
	return p
}

func cloneProviders(in []ports.Provider) []ports.Provider {
	out := make([]ports.Provider, len(in))
	for i, p := range in {
		out[i] = cloneProvider(p)
	}
	return out
}

// ConfigChanged drops the cached model configurations and providers. An
// engine shared by several processes calls it when it hears that another
// process changed model configurations, providers or their keys.
func (s *Store) ConfigChanged() { s.configs.changed() }

// Watching tells the store whether its engine hears every change to model
// configurations, providers and their keys, its own and other processes':
// while it does, they are served from memory; while it does not (a
// shared engine's notification connection is down), every read goes to
// the database. A store starts watching: an engine only this process
// writes hears every change through the store itself.
func (s *Store) Watching(on bool) { s.configs.watching(on) }

// watchedEngine drops the configuration cache after a write transaction
// that changed a model configuration, a provider or a provider's key.
type watchedEngine struct {
	Engine
	cache *configCache
}

// Write implements Engine.
func (w watchedEngine) Write(ctx context.Context, fn func(tx Tx) error) error {
	var touched bool
	err := w.Engine.Write(ctx, func(tx Tx) error { return fn(configTx{Tx: tx, touched: &touched}) })
	// Dropped after a failure too: a commit whose answer was lost may have
	// happened.
	if touched {
		w.cache.changed()
	}
	return err
}

// configTx notes a call of the row operations that change what the
// configuration cache holds.
type configTx struct {
	Tx
	touched *bool
}

func (t configTx) UpsertModelConfig(ctx context.Context, cfg ports.ModelConfig, now time.Time) error {
	*t.touched = true
	return t.Tx.UpsertModelConfig(ctx, cfg, now)
}

func (t configTx) DeleteModelConfig(ctx context.Context, id string) (bool, error) {
	*t.touched = true
	return t.Tx.DeleteModelConfig(ctx, id)
}

func (t configTx) UpsertProvider(ctx context.Context, p ports.Provider, now time.Time) error {
	*t.touched = true
	return t.Tx.UpsertProvider(ctx, p, now)
}

func (t configTx) DeleteProvider(ctx context.Context, id string) (bool, error) {
	*t.touched = true
	return t.Tx.DeleteProvider(ctx, id)
}

func (t configTx) UpsertProviderKey(ctx context.Context, providerID string, k ports.ProviderKey, now time.Time) error {
	*t.touched = true
	return t.Tx.UpsertProviderKey(ctx, providerID, k, now)
}

func (t configTx) DeleteProviderKey(ctx context.Context, keyID string) error {
	*t.touched = true
	return t.Tx.DeleteProviderKey(ctx, keyID)
}

func (t configTx) SetProviderKeyEnabled(ctx context.Context, providerID, keyID string, enabled bool, reason string, now time.Time) (bool, error) {
	*t.touched = true
	return t.Tx.SetProviderKeyEnabled(ctx, providerID, keyID, enabled, reason, now)
}
