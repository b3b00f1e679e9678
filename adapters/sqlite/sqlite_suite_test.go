package sqlite_test

import (
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestSQLite(t *testing.T) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		crashChild(dir, os.Getenv(crashModeEnv)) // see crash_test.go; never returns
	}
	RegisterFailHandler(Fail)
	RunSpecs(t, "SQLite store")
}
