package ports

import (
	"context"
	"encoding/json"
)

// SettingStore holds service settings as named JSON values (for example
// "llm_detailed_logging"). It does not interpret the values; each use case
// owns the shape of its settings.
//
// All methods return ctx.Err() (wrapped) on a cancelled context and then
// have written nothing.
type SettingStore interface {
	// Setting returns the stored value of name, or ErrNotFound. The JSON is
	// equivalent to what was put, not necessarily byte-identical
	// (PostgreSQL normalises jsonb).
	Setting(ctx context.Context, name string) (json.RawMessage, error)

	// PutSetting creates or replaces name. ErrInvalidSetting if value is
	// not valid JSON.
	PutSetting(ctx context.Context, name string, value json.RawMessage) error

	// DeleteSetting removes name, or returns ErrNotFound.
	DeleteSetting(ctx context.Context, name string) error
}
