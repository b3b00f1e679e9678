package relstore

import (
	"bytes"
	"context"
	"sync"
	"time"

	"keygate/ports"
)

// configCache keeps the model configurations (with their providers' fields
// joined in) in memory: a turn, a Tab request and a compatible-API call read
// them several times each, and they change only when an administrator
// edits them. It is filled by the first read and dropped by every change:
// a write through this store (watchedEngine), or, on an engine several
// processes share, a change another process made (ConfigChanged, from the
// engine's notifications). While such an engine cannot hear changes
// (Watching(false)) the cache is not used and every read goes to the
// database.
type configCache struct {
	mu sync.Mutex
	// on is whether reads may be served from memory.
	on bool
	// gen counts changes; a read stores what it loaded only if no change
	// happened while it read, so a load that raced a write is not kept.
	gen  uint64
	list []ports.ModelConfig
	byID map[string]int
	// loaded is when list was loaded; the list is dropped after maxAge
	// even when no change was heard, a bound on what a lost notification
	// costs.
	loaded time.Time
}

// configMaxAge bounds how long a cached list is served without a change
// being heard.
const configMaxAge = time.Minute

// cached returns a copy of the cached configurations and true, or the
// generation a load must carry to be stored.
func (c *configCache) cached(now time.Time) ([]ports.ModelConfig, map[string]int, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.on && c.list != nil && now.Sub(c.loaded) < configMaxAge {
		return c.list, c.byID, c.gen, true
	}
	return nil, nil, c.gen, false
}

// serving reports whether reads may be served from memory.
func (c *configCache) serving() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.on
}

// store keeps list when no change happened since gen was read.
func (c *configCache) store(gen uint64, list []ports.ModelConfig, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on || c.gen != gen {
		return
	}
	c.list = cloneConfigs(list)
	c.byID = make(map[string]int, len(list))
	for i, m := range c.list {
		c.byID[m.ID] = i
	}
	c.loaded = now
}

// changed drops the cache.
func (c *configCache) changed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.list, c.byID = nil, nil
}

// watching turns serving from memory on or off; either way what is cached
// is dropped (a change may have been missed while off).
func (c *configCache) watching(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = on
	c.gen++
	c.list, c.byID = nil, nil
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

// ConfigChanged drops the cached model configurations. An engine shared by
// several processes calls it when it hears that another process changed
// model configurations or providers.
func (s *Store) ConfigChanged() { s.configs.changed() }

// Watching tells the store whether its engine hears every change to model
// configurations and providers, its own and other processes': while it
// does, the configurations are served from memory; while it does not (a
// shared engine's notification connection is down), every read goes to
// the database. A store starts watching: an engine only this process
// writes hears every change through the store itself.
func (s *Store) Watching(on bool) { s.configs.watching(on) }

// watchedEngine drops the configuration cache after a committed write
// transaction that changed a model configuration or a provider.
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
