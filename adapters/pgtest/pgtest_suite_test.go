package pgtest_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestPgtest(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "pgtest")
}
