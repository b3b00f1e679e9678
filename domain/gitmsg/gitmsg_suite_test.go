package gitmsg_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestGitMsg(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "GitMsg Suite")
}
