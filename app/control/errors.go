package control

import (
	"fmt"

	"keygate/ports"
)

// ErrNotFound is returned for an unknown model, call or conversation. It is
// the stores' sentinel, so errors.Is matches either name.
var ErrNotFound = ports.ErrNotFound

// InvalidError says which input field is wrong and how to fix it.
type InvalidError struct {
	Field  string
	Reason string
}

// Error names the field and the reason.
func (e *InvalidError) Error() string { return fmt.Sprintf("invalid %s: %s", e.Field, e.Reason) }

func invalid(field, reason string) error { return &InvalidError{Field: field, Reason: reason} }
