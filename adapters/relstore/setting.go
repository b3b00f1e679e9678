package relstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"keygate/ports"
)

// Settings implements ports.SettingStore.
type Settings struct{ s *Store }

var _ ports.SettingStore = Settings{}

// Setting implements ports.SettingStore.
func (st Settings) Setting(ctx context.Context, name string) (json.RawMessage, error) {
	var v []byte
	err := st.s.engine.Read(ctx, func(tx Tx) error {
		var err error
		v, err = tx.GetSetting(ctx, name)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read setting %q: %w", name, err)
	}
	return v, nil
}

// PutSetting implements ports.SettingStore.
func (st Settings) PutSetting(ctx context.Context, name string, value json.RawMessage) error {
	if !json.Valid(value) {
		return fmt.Errorf("put setting %q: %w", name, ports.ErrInvalidSetting)
	}
	err := st.s.engine.Write(ctx, func(tx Tx) error { return tx.PutSetting(ctx, name, value, st.s.now()) })
	if err != nil {
		return fmt.Errorf("put setting %q: %w", name, err)
	}
	return nil
}

// DeleteSetting implements ports.SettingStore.
func (st Settings) DeleteSetting(ctx context.Context, name string) error {
	err := st.s.engine.Write(ctx, func(tx Tx) error {
		ok, err := tx.DeleteSetting(ctx, name)
		if err == nil && !ok {
			err = ports.ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("delete setting %q: %w", name, err)
	}
	return nil
}

func isNotFound(err error) bool { return errors.Is(err, ports.ErrNotFound) }
