package sse

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// ErrLineTooLong means a line exceeded the reader's bound.
var ErrLineTooLong = errors.New("sse line too long")

// ErrInvalidUTF8 means a line was not valid UTF-8.
var ErrInvalidUTF8 = errors.New("sse invalid UTF-8")

// DefaultMaxLine bounds one line. A Responses terminal event repeats the whole
// output, so it is generous.
const DefaultMaxLine = 16 << 20

// Event is one dispatched event. Name is empty when the stream gave no
// "event:" field. Both slices alias the reader's buffers and are valid until
// the next call to Next.
type Event struct {
	Name []byte
	Data []byte
}

// readBuffer is the read buffer of a stream. Token events are short, and
// one buffer per concurrent stream is most of a turn's memory when it is
// large; a longer line grows the spill buffer instead, up to maxLine.
const readBuffer = 4 << 10

// Reader splits a byte stream into events.
type Reader struct {
	br      *bufio.Reader
	maxLine int
	line    []byte // spill buffer for lines longer than br's buffer
	name    []byte
	data    []byte
	hasData bool
	lines   int64
	err     error
}

// NewReader reads events from r. maxLine <= 0 means DefaultMaxLine.
func NewReader(r io.Reader, maxLine int) *Reader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	return &Reader{br: bufio.NewReaderSize(r, readBuffer), maxLine: maxLine}
}

// Next returns the next event. At the end of the stream it returns io.EOF;
// other errors are ErrLineTooLong, ErrInvalidUTF8 (both wrapped with the line
// number) or the underlying read error unchanged, so transport failures keep
// their identity.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	r.name = r.name[:0]
	r.data = r.data[:0]
	r.hasData = false
	for {
		line, err := r.readLine()
		if errors.Is(err, io.EOF) && len(line) == 0 {
			if r.hasData {
				r.err = io.EOF
				return Event{Name: r.name, Data: r.data}, nil
			}
			r.err = io.EOF
			return Event{}, io.EOF
		}
		if err != nil && !errors.Is(err, io.EOF) {
			r.err = err
			return Event{}, err
		}
		if len(line) == 0 {
			if r.hasData {
				return Event{Name: r.name, Data: r.data}, nil
			}
			r.name = r.name[:0]
			continue
		}
		r.field(line)
		if errors.Is(err, io.EOF) {
			// Unterminated last line: dispatch what we have on the next turn.
			continue
		}
	}
}

// readLine returns one line without its terminator. The result aliases
// internal buffers.
func (r *Reader) readLine() ([]byte, error) {
	r.lines++
	chunk, err := r.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		r.line = append(r.line[:0], chunk...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if len(r.line) > r.maxLine {
				return nil, fmt.Errorf("line %d: %w", r.lines, ErrLineTooLong)
			}
			chunk, err = r.br.ReadSlice('\n')
			r.line = append(r.line, chunk...)
		}
		chunk = r.line
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(chunk) > r.maxLine {
		return nil, fmt.Errorf("line %d: %w", r.lines, ErrLineTooLong)
	}
	chunk = bytes.TrimSuffix(chunk, []byte{'\n'})
	chunk = bytes.TrimSuffix(chunk, []byte{'\r'})
	if !utf8.Valid(chunk) {
		return nil, fmt.Errorf("line %d: %w", r.lines, ErrInvalidUTF8)
	}
	return chunk, err
}

func (r *Reader) field(line []byte) {
	if line[0] == ':' {
		return // comment, used as keep-alive
	}
	name, value, found := bytes.Cut(line, []byte{':'})
	if found && len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	switch string(name) {
	case "event":
		r.name = append(r.name[:0], value...)
	case "data":
		if r.hasData {
			r.data = append(r.data, '\n')
		}
		r.data = append(r.data, value...)
		r.hasData = true
	}
}
