package compile

import (
	"container/list"
	"crypto/sha256"
	"sync"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// Schemas remembers the JSON of the MCP input schemas clients send as a
// google.protobuf.Value: every run request of a workspace repeats the same
// tools, and protojson renders a schema far slower than the deterministic
// binary encoding that keys it (its SHA-256) is made. It holds at most max
// schemas, dropping the least recently used. Safe for concurrent use; the
// zero value is not usable, a nil *Schemas renders every time.
type Schemas struct {
	mu    sync.Mutex
	max   int
	order *list.List // of schemaEntry, most recent first
	byKey map[[sha256.Size]byte]*list.Element
}

type schemaEntry struct {
	key  [sha256.Size]byte
	json string
}

// NewSchemas returns a cache of at most max schemas.
func NewSchemas(max int) *Schemas {
	return &Schemas{max: max, order: list.New(), byKey: map[[sha256.Size]byte]*list.Element{}}
}

// json renders v as protojson does, from the cache when it holds v.
func (c *Schemas) json(v *structpb.Value) (string, error) {
	if c == nil {
		b, err := protojson.Marshal(v)
		return string(b), err
	}
	raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(v)
	if err != nil {
		return "", err
	}
	key := sha256.Sum256(raw)
	c.mu.Lock()
	if e, ok := c.byKey[key]; ok {
		c.order.MoveToFront(e)
		s := e.Value.(schemaEntry).json
		c.mu.Unlock()
		return s, nil
	}
	c.mu.Unlock()
	b, err := protojson.Marshal(v)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; !ok {
		c.byKey[key] = c.order.PushFront(schemaEntry{key: key, json: string(b)})
		for c.order.Len() > c.max {
			last := c.order.Back()
			c.order.Remove(last)
			delete(c.byKey, last.Value.(schemaEntry).key)
		}
	}
	return string(b), nil
}

// Len is how many schemas the cache holds.
func (c *Schemas) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
