package frame

import (
	"context"
	"io"
)

// TakeSlot takes one of in's inflation slots until release is called, so
// that specs can fill the Inflater deterministically.
func TakeSlot(in *Inflater) (release func()) {
	_ = in.slots.Acquire(context.Background(), 1)
	return func() { in.slots.Release(1) }
}

// ReadAll is readAll, for the spec of its first buffer.
func ReadAll(r io.Reader, announced int64) ([]byte, error) { return readAll(r, announced) }

// MaxPresize is maxPresize.
const MaxPresize = maxPresize
