package tab_test

import (
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/pmezard/go-difflib/difflib"

	"keygate/domain/tab"
)

func TestTab(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Tab Suite")
}

// diff is the library diff app/tab passes in production.
func diff(a, b []string) []tab.DiffOp {
	var ops []tab.DiffOp
	for _, o := range difflib.NewMatcher(a, b).GetOpCodes() {
		ops = append(ops, tab.DiffOp{Equal: o.Tag == 'e', A1: o.I1, A2: o.I2, B1: o.J1, B2: o.J2})
	}
	return ops
}

// applied is contents after the events' edits, as a client applies them.
func applied(contents string, evs []tab.Event) string {
	return strings.Join(tab.ApplyEvents(strings.Split(contents, "\n"), evs), "\n")
}

// feed runs a decoder over deltas and returns the events of each delta
// and of the finish.
func feed(d tab.Decoder, truncated bool, deltas ...string) (each [][]tab.Event, all []tab.Event) {
	for _, s := range deltas {
		evs := d.Feed(s)
		each = append(each, evs)
		all = append(all, evs...)
	}
	end := d.Finish(truncated)
	each = append(each, end)
	return each, append(all, end...)
}

// input is a request with the cursor at the "|" in text (removed).
func input(path, lang, text string) tab.Input {
	i := strings.Index(text, "|")
	before := text[:i]
	line := strings.Count(before, "\n")
	col := len(before) - (strings.LastIndex(before, "\n") + 1)
	return tab.Input{RequestID: "r1", Path: path, LanguageID: lang, Contents: before + text[i+1:], Line: line, Column: col}
}
