package relstore_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestRelstore(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Relational store rows")
}
