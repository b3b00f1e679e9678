package tools

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	agentv1 "keygate/gen/cursor/agent/v1"
)

// The client decides from a shell exec's parse which commands may run
// without asking the user (its allowlist matches executables), so the
// parse must be a real shell parser's, never a split on spaces: a command
// hidden in a substitution, a function body or after a `;` is a command
// too. mvdan.cc/sh is a maintained, complete parser of bash (the syntax
// the client's terminal runs). Anything it cannot parse is reported as
// parsing_failed with no commands, which makes the client ask.

// maxParsedCommand bounds the command text parsed; a longer command is
// reported unparsed.
const maxParsedCommand = 64 << 10

// shellParse is what the exec carries about its command.
type shellParse struct {
	result *agentv1.ShellCommandParsingResult
	// simple lists the full text of every simple command, in source order.
	simple        []string
	input, output bool
}

// parseShell parses command as bash.
func parseShell(command string) shellParse {
	failed := shellParse{result: &agentv1.ShellCommandParsingResult{ParsingFailed: true}}
	if len(command) > maxParsedCommand {
		return failed
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return failed
	}
	p := shellParse{result: &agentv1.ShellCommandParsingResult{}}
	devNull := true
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) == 0 { // assignments only
				return true
			}
			text := source(command, n)
			p.simple = append(p.simple, text)
			p.result.ExecutableCommands = append(p.result.ExecutableCommands, executable(command, n, text))
		case *syntax.CmdSubst, *syntax.ProcSubst:
			p.result.HasCommandSubstitution = true
		case *syntax.Redirect:
			r := redirect(command, n)
			p.result.Redirects = append(p.result.Redirects, r)
			if r.GetTargetText() != "/dev/null" {
				devNull = false
			}
			switch n.Op {
			case syntax.RdrIn, syntax.RdrInOut, syntax.DplIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
				p.input = true
			}
			if n.Op != syntax.RdrIn && n.Op != syntax.DplIn && n.Op != syntax.Hdoc && n.Op != syntax.DashHdoc && n.Op != syntax.WordHdoc {
				p.output = true
			}
		}
		return true
	})
	if len(p.result.Redirects) > 0 {
		p.result.HasRedirects = true
		p.result.AllRedirectsAreDevNull = &devNull
	}
	return p
}

// source is the text of n in the command.
func source(command string, n syntax.Node) string {
	from, to := int(n.Pos().Offset()), int(n.End().Offset())
	if from < 0 || to > len(command) || from > to {
		return ""
	}
	return command[from:to]
}

// executable describes one simple command: the program (its literal name,
// else its text) and its arguments, each with the type of word it is.
func executable(command string, c *syntax.CallExpr, text string) *agentv1.ShellCommandParsingResult_ExecutableCommand {
	name := c.Args[0].Lit()
	if name == "" {
		name = source(command, c.Args[0])
	}
	e := &agentv1.ShellCommandParsingResult_ExecutableCommand{Name: name, FullText: text}
	for _, w := range c.Args[1:] {
		e.Args = append(e.Args, &agentv1.ShellCommandParsingResult_ExecutableCommandArg{Type: wordType(w), Value: source(command, w)})
	}
	return e
}

// wordType names a word by what it is made of, in the node names of the
// bash grammar the client's own parser uses.
func wordType(w *syntax.Word) string {
	if len(w.Parts) != 1 {
		return "concatenation"
	}
	switch w.Parts[0].(type) {
	case *syntax.Lit:
		return "word"
	case *syntax.SglQuoted:
		return "raw_string"
	case *syntax.DblQuoted:
		return "string"
	case *syntax.ParamExp:
		return "expansion"
	case *syntax.CmdSubst:
		return "command_substitution"
	case *syntax.ProcSubst:
		return "process_substitution"
	case *syntax.ArithmExp:
		return "arithmetic_expansion"
	}
	return "word"
}

func redirect(command string, r *syntax.Redirect) *agentv1.ShellCommandParsingResult_Redirect {
	out := &agentv1.ShellCommandParsingResult_Redirect{Operator: r.Op.String(), TargetNodeType: "word"}
	if r.N != nil {
		if fd, err := strconv.ParseUint(r.N.Value, 10, 32); err == nil {
			out.DestinationFds = []uint32{uint32(fd)}
		}
	}
	switch {
	case r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc:
		out.TargetNodeType = "heredoc_body"
		if r.Hdoc != nil {
			t := source(command, r.Hdoc)
			out.TargetText = &t
		}
	case r.Word != nil:
		out.TargetNodeType = wordType(r.Word)
		if out.TargetNodeType == "word" && isNumber(r.Word.Lit()) {
			out.TargetNodeType = "number"
		}
		t := source(command, r.Word)
		out.TargetText = &t
	}
	return out
}

func isNumber(s string) bool {
	_, err := strconv.ParseUint(s, 10, 32)
	return s != "" && err == nil
}
