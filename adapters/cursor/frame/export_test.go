package frame

import "context"

// TakeSlot takes one of in's inflation slots until release is called, so
// that specs can fill the Inflater deterministically.
func TakeSlot(in *Inflater) (release func()) {
	_ = in.slots.Acquire(context.Background(), 1)
	return func() { in.slots.Release(1) }
}
