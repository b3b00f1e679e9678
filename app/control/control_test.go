package control_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"keygate/app/control"
)

var _ = DescribeTable("MaskKey",
	func(key, hint string) { Expect(control.MaskKey(key)).To(Equal(hint)) },
	Entry("no key gives no hint", "", ""),
	Entry("a short key shows nothing of itself", "sk-abc", "••••••"),
	Entry("a long key shows its first three and last four characters", "sk-proj-0123456789wxyz", "sk-…wxyz"),
)
