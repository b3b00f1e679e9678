package frame

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"

	"golang.org/x/sync/semaphore"
)

// DefaultInflating is how many gzip payloads an Inflater inflates at once.
// Inflation is CPU work on bytes already read, so a slot is held for
// milliseconds; two keep the memory a burst of gzip bombs can take at two
// payload limits while a legitimate compressed append waits only for the
// one or two ahead of it.
const DefaultInflating = 2

// inflateChunk is the largest piece inflated output grows by, so that
// output refused at the limit never held more than the limit plus one
// chunk, and accepted output is copied once.
const inflateChunk = 1 << 20

// ErrInflateBusy reports a request that gave up waiting for an inflation
// slot (its context ended).
var ErrInflateBusy = errors.New("server busy inflating other compressed requests")

// Inflater inflates the gzip payloads of inbound requests, a bounded number
// at a time. One Inflater serves every route of a process, so the cap holds
// across them. A nil *Inflater inflates without a cap.
type Inflater struct {
	slots *semaphore.Weighted
}

// NewInflater returns an Inflater running at most concurrent inflations
// (<= 0: DefaultInflating).
func NewInflater(concurrent int) *Inflater {
	if concurrent <= 0 {
		concurrent = DefaultInflating
	}
	return &Inflater{slots: semaphore.NewWeighted(int64(concurrent))}
}

// Gunzip inflates b into at most limit bytes, once a slot is free. It
// stops at the first byte past limit (*TooLargeError) and fails with
// ErrInflateBusy (wrapping ctx's error) when ctx ends before a slot frees.
func (in *Inflater) Gunzip(ctx context.Context, b []byte, limit int64) ([]byte, error) {
	if in == nil {
		return Gunzip(b, limit)
	}
	if err := in.slots.Acquire(ctx, 1); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInflateBusy, err)
	}
	defer in.slots.Release(1)
	return Gunzip(b, limit)
}

// Gunzip inflates b, refusing output larger than maxSize bytes as soon as
// it passes that size: it never inflates more than maxSize+1 bytes.
func Gunzip(b []byte, maxSize int64) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("open gzip payload: %w", err)
	}
	defer zr.Close()
	var (
		chunks [][]byte
		cur    []byte
		total  int64
		grow   = int64(32 << 10)
	)
	for {
		if len(cur) == cap(cur) {
			if cur != nil {
				chunks = append(chunks, cur)
			}
			// Never ask for more than one byte past the limit.
			size := min(grow, maxSize+1-total)
			cur = make([]byte, 0, size)
			grow = min(2*grow, inflateChunk)
		}
		n, err := zr.Read(cur[len(cur):cap(cur)])
		cur = cur[:len(cur)+n]
		total += int64(n)
		if total > maxSize {
			return nil, &TooLargeError{Size: total, Limit: maxSize}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("gunzip payload: %w", err)
		}
	}
	if chunks == nil {
		return cur, nil
	}
	return bytes.Join(append(chunks, cur), nil), nil
}
