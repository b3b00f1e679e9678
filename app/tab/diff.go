package tab

import (
	"github.com/pmezard/go-difflib/difflib"

	"keygate/domain/tab"
)

// lineDiff is the edit decoder's diff: go-difflib's sequence matcher
// (Python's difflib), whose longest-matching-block diffs read as a person
// would write them.
func lineDiff(a, b []string) []tab.DiffOp {
	codes := difflib.NewMatcher(a, b).GetOpCodes()
	ops := make([]tab.DiffOp, len(codes))
	for i, o := range codes {
		ops[i] = tab.DiffOp{Equal: o.Tag == 'e', A1: o.I1, A2: o.I2, B1: o.J1, B2: o.J2}
	}
	return ops
}
