package cursorproxy_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestCursorProxy(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Cursor Proxy Suite")
}
