package sse_test

import (
	"errors"
	"io"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/adapters/provider/sse"
)

type event struct{ name, data string }

func readAll(r io.Reader, maxLine int) ([]event, error) {
	rd := sse.NewReader(r, maxLine)
	var out []event
	for {
		ev, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, event{string(ev.Name), string(ev.Data)})
	}
}

var _ = Describe("Reader.Next", func() {
	DescribeTable("splits a stream into events",
		func(input string, want []event) {
			got, err := readAll(strings.NewReader(input), 0)
			Expect(err).NotTo(HaveOccurred())
			Expect(got).To(Equal(want))
		},
		Entry("named events end at a blank line", "event: a\ndata: 1\n\nevent: b\ndata: 2\n\n", []event{{"a", "1"}, {"b", "2"}}),
		Entry("data-only events have no name", "data: x\n\ndata: [DONE]\n\n", []event{{"", "x"}, {"", "[DONE]"}}),
		Entry("several data lines join with newlines", "data: a\ndata: b\n\n", []event{{"", "a\nb"}}),
		Entry("CRLF line endings are accepted", "event: a\r\ndata: 1\r\n\r\n", []event{{"a", "1"}}),
		Entry("comments and unknown fields are ignored", ": keep-alive\n...\nid: 7\ndata: x\n\n", []event{{"", "x"}}),
		Entry("a value without a space after the colon is kept whole", "data:x\n\n", []event{{"", "x"}}),
		Entry("an event without data dispatches nothing", "event: ping\n\ndata: x\n\n", []event{{"", "x"}}),
		Entry("the last event is delivered even without a closing blank line", "event: a\ndata: 1\n\nevent: b\ndata: 2", []event{{"a", "1"}, {"b", "2"}}),
		Entry("trailing spaces after JSON stay in the data", "data: {}   \n\n", []event{{"", "{}   "}}),
	)

	It("fails invalid UTF-8 with ErrInvalidUTF8", func() {
		_, err := readAll(strings.NewReader("data: ok\n\ndata: \xff\n\n"), 0)
		Expect(err).To(MatchError(sse.ErrInvalidUTF8))
	})

	It("fails a line longer than the bound with ErrLineTooLong", func() {
		_, err := readAll(strings.NewReader("data: "+strings.Repeat("x", 200<<10)+"\n\n"), 100<<10)
		Expect(err).To(MatchError(sse.ErrLineTooLong))
	})

	It("reads a long line within the bound across buffer refills", func() {
		long := strings.Repeat("y", 300<<10)
		got, err := readAll(strings.NewReader("data: "+long+"\n\n"), 0)
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal([]event{{"", long}}))
	})

	It("returns a transport error unchanged so it keeps its category", func() {
		boom := errors.New("connection reset")
		_, err := readAll(io.MultiReader(strings.NewReader("data: a\n\n"), errReader{boom}), 0)
		Expect(err).To(BeIdenticalTo(boom))
	})
})

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
