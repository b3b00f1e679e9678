package callrecord_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestCallRecord(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "CallRecord Suite")
}
