package conversation_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestConversation(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Conversation Suite")
}
