package prefix_test

import (
	"fmt"

	"github.com/onsi/gomega/types"

	"keygate/domain/llm"
	"keygate/domain/prefix"
)

// BeStablePrefixOf succeeds when actual, the previous llm.Request, is a
// stable prefix of next; on failure it prints the divergence report.
func BeStablePrefixOf(next llm.Request) types.GomegaMatcher {
	return &stablePrefixMatcher{next: next}
}

type stablePrefixMatcher struct {
	next   llm.Request
	report prefix.Report
}

func (m *stablePrefixMatcher) Match(actual any) (bool, error) {
	previous, ok := actual.(llm.Request)
	if !ok {
		return false, fmt.Errorf("BeStablePrefixOf expects an llm.Request, got %T", actual)
	}
	m.report = prefix.IsStablePrefix(previous, m.next)
	return m.report.Stable, nil
}

func (m *stablePrefixMatcher) FailureMessage(any) string {
	return fmt.Sprintf("expected the previous request to be a stable prefix of the next one, but: %v", m.report.Err())
}

func (m *stablePrefixMatcher) NegatedFailureMessage(any) string {
	return fmt.Sprintf("expected the next request to break the prefix, but it extends it (%d common messages)", m.report.Common)
}
