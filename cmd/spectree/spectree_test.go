package main

import (
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("spectree", func() {
	It("prints each suite as a tree in source order, pending specs and labels marked, and fails on a suite that did not run", func() {
		var out strings.Builder
		err := run(&out, filepath.Join("testdata", "report.json"), "/repo")
		Expect(out.String()).To(Equal(`adapters/a (did not run: Failed to compile a:)

app/b: B Suite
├── The engine
│   └── runs one turn
└── The store
    ├── opens
    ├── appends
    │   ├── in order
    │   └── across a reopen [slow] (pending)
    └── refuses
        ├── an empty id
        └── a stale head
`))
		Expect(err).To(MatchError(errSuiteFailed))
	})

	It("names the report it cannot read", func() {
		Expect(run(&strings.Builder{}, filepath.Join("testdata", "missing.json"), ".")).To(MatchError(ContainSubstring("missing.json")))
	})
})
