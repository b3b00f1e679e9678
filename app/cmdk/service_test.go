package cmdk_test

import (
	"context"
	"errors"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	appcmdk "keygate/app/cmdk"
	"keygate/domain/callrecord"
	"keygate/domain/cmdk"
	"keygate/domain/gitmsg"
	"keygate/domain/identity"
	"keygate/domain/llm"
)

var _ = Describe("inline edits, terminal commands, commit messages and branch names", func() {
	var (
		prov              *provider
		editModel, commit string
		ctx               context.Context
	)
	service := func() *appcmdk.Service {
		return appcmdk.New(appcmdk.Options{Provider: prov, Endpoints: endpoints{},
			EditModel:   func(context.Context) (string, error) { return editModel, nil },
			CommitModel: func(context.Context) (string, error) { return commit, nil }})
	}
	edit := cmdk.Input{RequestID: "r1", Path: "a.go", Instruction: "use y", Start: 2, Selection: []string{"x := 1"}}
	collect := func(out *[]string) func(string) error {
		return func(s string) error { *out = append(*out, s); return nil }
	}
	BeforeEach(func() {
		prov, editModel, commit = newProvider(), "edit-model", "commit-model"
		ctx = identity.NewContext(context.Background(), identity.Identity{UserID: "u-1"})
	})

	It("streams an edit's replacement lines as they complete, on one routed call of kind cmdk", func() {
		prov = newProvider([]string{"```go\ny", " := 1\nz := 2", "\n```\nexplained"})
		var got []string
		Expect(service().Edit(ctx, edit, collect(&got))).To(Succeed())
		Expect(got).To(Equal([]string{"y := 1\n", "z := 2\n"}))
		calls := prov.Calls()
		Expect(calls).To(HaveLen(1))
		Expect(calls[0].Kind).To(Equal(callrecord.KindCmdK))
		Expect(calls[0].RunID).To(Equal("r1"))
		Expect(calls[0].Endpoint.Route).To(Equal("edit-model"))
		Expect(calls[0].Request.Model).To(Equal("upstream-edit-model"))
		Expect(calls[0].Request.Instructions).To(ContainSubstring("replace the selection"))
		Expect(calls[0].Request.Messages[0].Parts[0].Text).To(ContainSubstring("<selection>\nx := 1\n</selection>"))
	})

	It("stops reading once the closing fence came", func() {
		prov = newProvider([]string{"```\n", "y\n", "```\n", "more", "and more"})
		var got []string
		Expect(service().Edit(ctx, edit, collect(&got))).To(Succeed())
		Expect(prov.Read()).To(Equal(3))
	})

	It("streams a chat-mode answer's text as it comes", func() {
		prov = newProvider([]string{"It sets ", "x."})
		chat := edit
		chat.Chat = true
		var got []string
		Expect(service().Edit(ctx, chat, collect(&got))).To(Succeed())
		Expect(got).To(Equal([]string{"It sets ", "x."}))
	})

	It("cancels the model call when the request's context ends", func() {
		prov = newProvider([]string{"y\n"})
		prov.hang = true
		cctx, cancel := context.WithCancel(ctx)
		errc, first := make(chan error, 1), make(chan string, 1)
		go func() {
			errc <- service().Edit(cctx, edit, func(s string) error { first <- s; return nil })
		}()
		Eventually(first).Should(Receive(Equal("y\n")))
		cancel()
		Eventually(prov.cancelled).Should(BeClosed())
		Eventually(errc).Should(Receive(MatchError(context.Canceled)))
	})

	It("serves nothing without a model or a caller, and refuses an edit without instruction before any call", func() {
		editModel = ""
		Expect(service().Edit(ctx, edit, func(string) error { return nil })).To(MatchError(appcmdk.ErrOff))
		editModel = "m"
		Expect(service().Edit(context.Background(), edit, func(string) error { return nil })).To(MatchError(appcmdk.ErrNoCaller))
		none := edit
		none.Instruction = ""
		Expect(service().Edit(ctx, none, func(string) error { return nil })).To(MatchError(cmdk.ErrNoInstruction))
		Expect(prov.Calls()).To(BeEmpty())
	})

	It("wraps a provider failure", func() {
		err := service().Edit(ctx, edit, func(string) error { return nil })
		var pe *llm.ProviderError
		Expect(errors.As(err, &pe)).To(BeTrue())
	})

	It("answers a terminal instruction with one command line on the inline-edit model", func() {
		prov = newProvider([]string{"```sh\n$ ls *.go\n```"})
		got, err := service().Terminal(ctx, cmdk.TerminalInput{RequestID: "t1", Instruction: "list go files"})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal("ls *.go"))
		Expect(prov.Calls()[0].Kind).To(Equal(callrecord.KindCmdK))
		Expect(prov.Calls()[0].Endpoint.Route).To(Equal("edit-model"))
	})

	It("writes a commit message on the commit model, of kind commit, from the diff and the recent messages", func() {
		prov = newProvider([]string{"\"api: handle nil bodies\""})
		got, err := service().CommitMessage(ctx, gitmsg.CommitInput{RequestID: "c1", Diffs: []string{"+x"}, Recent: []string{"ui: add card"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal("api: handle nil bodies"))
		call := prov.Calls()[0]
		Expect(call.Kind).To(Equal(callrecord.KindCommit))
		Expect(call.Endpoint.Route).To(Equal("commit-model"))
		Expect(call.Request.Messages[0].Parts[0].Text).To(ContainSubstring("<commit>\nui: add card\n</commit>"))
	})

	It("names a branch on the commit model, of kind commit", func() {
		prov = newProvider([]string{"Feat/Add Login"})
		got, err := service().BranchName(ctx, gitmsg.BranchInput{RequestID: "b1", Diff: "+login"})
		Expect(err).NotTo(HaveOccurred())
		Expect(got).To(Equal("feat/add-login"))
		Expect(prov.Calls()[0].Kind).To(Equal(callrecord.KindCommit))
	})

	It("says when the model gave nothing usable", func() {
		prov = newProvider([]string{"  "})
		_, err := service().CommitMessage(ctx, gitmsg.CommitInput{Diffs: []string{"+x"}})
		Expect(err).To(MatchError(appcmdk.ErrEmptyAnswer))
		commit = ""
		_, err = service().BranchName(ctx, gitmsg.BranchInput{Diff: "+x"})
		Expect(err).To(MatchError(appcmdk.ErrOff))
	})
})
