package frame

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Flag bits of the envelope's first byte.
const (
	// FlagCompressed marks a payload compressed with the stream's codec (gzip).
	FlagCompressed byte = 0x01
	// FlagEndStream marks the end-of-stream frame, whose payload is JSON.
	FlagEndStream byte = 0x02
)

// HeaderSize is the length of the flag byte plus the length prefix.
const HeaderSize = 5

// DefaultMaxSize is the largest payload accepted unless configured
// otherwise: 32 MiB, as sent and once inflated alike. The largest thing a
// client sends is an append carrying images or a file (a user message with
// screenshots, a read result, a KV blob), and a BidiAppend carries its
// message as hex, so this admits a 16 MiB message on BidiAppend and 32 MiB
// on the HTTP/2 Run. More could not reach a model anyway: images go to the
// provider base64-encoded (4/3 larger) and Anthropic's Messages API refuses
// requests over 32 MB. It is also what one inflation may hold at most, so
// the Inflater's slots times this is the memory gzip bodies can take.
const DefaultMaxSize = 32 << 20

// ErrTruncated reports a stream that ended inside a frame.
var ErrTruncated = errors.New("connect frame truncated")

// TooLargeError reports a frame whose declared or decompressed payload
// exceeds the configured limit.
type TooLargeError struct {
	Size  int64 // declared length, or the decompressed bytes read so far
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("connect frame of %d bytes exceeds the %d byte limit", e.Size, e.Limit)
}

// Frame is one decoded envelope. Payload is always the decompressed bytes;
// Flags keeps the bits as they arrived.
type Frame struct {
	Flags   byte
	Payload []byte
}

// EndStream reports whether f is the end-of-stream frame.
func (f Frame) EndStream() bool { return f.Flags&FlagEndStream != 0 }

// Compressed reports whether f arrived gzip-compressed.
func (f Frame) Compressed() bool { return f.Flags&FlagCompressed != 0 }

// Append encodes one uncompressed frame onto dst and returns the result.
func Append(dst []byte, flags byte, payload []byte) []byte {
	var hdr [HeaderSize]byte
	hdr[0] = flags
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(payload)))
	dst = append(dst, hdr[:]...)
	return append(dst, payload...)
}

// Encode returns one uncompressed frame. Keygate never compresses what it
// sends; the client accepts plain frames.
func Encode(flags byte, payload []byte) []byte {
	return Append(make([]byte, 0, HeaderSize+len(payload)), flags, payload)
}

// EncodeGzip returns one frame whose payload is gzip-compressed, as a client
// may send it. It is used by the client simulator and by tests.
func EncodeGzip(flags byte, payload []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(payload) // writes to a bytes.Buffer cannot fail
	_ = zw.Close()
	return Encode(flags|FlagCompressed, buf.Bytes())
}

// Reader decodes consecutive frames from a byte stream. Frames may span any
// number of reads and one read may hold several frames.
type Reader struct {
	r   *bufio.Reader
	max int64
	in  *Inflater
}

// NewReader returns a Reader with a payload limit of maxSize bytes;
// maxSize <= 0 means DefaultMaxSize.
func NewReader(r io.Reader, maxSize int64) *Reader {
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	return &Reader{r: bufio.NewReader(r), max: maxSize}
}

// Inflating makes Next inflate compressed payloads through in (a few at a
// time across the process), waiting for a slot no longer than Next's ctx
// lives. Without it a Reader inflates on its own goroutine, which suits
// trusted streams (Cursor's own answers) only.
func (r *Reader) Inflating(in *Inflater) *Reader {
	r.in = in
	return r
}

// Next returns the next frame. It returns io.EOF at a clean end between
// frames, ErrTruncated inside a frame, *TooLargeError for an oversized frame
// (before reading its payload, or as soon as its inflation passes the
// limit), a wrapped error for a bad gzip payload, and ErrInflateBusy
// (wrapping ctx's error) when ctx ended while waiting for an inflation
// slot; ctx bounds nothing else (reads block on the underlying reader).
func (r *Reader) Next(ctx context.Context) (Frame, error) {
	var hdr [HeaderSize]byte
	if _, err := io.ReadFull(r.r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return Frame{}, ErrTruncated
		}
		return Frame{}, err
	}
	size := int64(binary.BigEndian.Uint32(hdr[1:]))
	if size > r.max {
		return Frame{}, &TooLargeError{Size: size, Limit: r.max}
	}
	payload := make([]byte, size)
	if _, err := io.ReadFull(r.r, payload); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return Frame{}, ErrTruncated
		}
		return Frame{}, err
	}
	f := Frame{Flags: hdr[0], Payload: payload}
	if f.Compressed() {
		plain, err := r.in.Gunzip(ctx, payload, r.max)
		if err != nil {
			return Frame{}, err
		}
		f.Payload = plain
	}
	return f, nil
}
