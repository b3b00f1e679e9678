package cursortest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	agentv1 "keygate/gen/cursor/agent/v1"
)

func (w *Workspace) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(w.Root, p)
}

// answer runs a non-streaming exec.
func (w *Workspace) answer(ex *agentv1.ExecServerMessage) *agentv1.ExecClientMessage {
	switch {
	case ex.GetReadArgs() != nil:
		return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ReadResult{ReadResult: w.read(ex.GetReadArgs())}}
	case ex.GetDiagnosticsArgs() != nil:
		var diags []*agentv1.Diagnostic
		if w.Diagnostics != nil {
			diags = w.Diagnostics(ex.GetDiagnosticsArgs().GetPath())
		}
		return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_DiagnosticsResult{DiagnosticsResult: &agentv1.DiagnosticsResult{
			Result: &agentv1.DiagnosticsResult_Success{Success: &agentv1.DiagnosticsSuccess{Path: ex.GetDiagnosticsArgs().GetPath(),
				Diagnostics: diags, TotalDiagnostics: int32(len(diags))}}}}}
	case ex.GetWriteArgs() != nil:
		return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_WriteResult{WriteResult: w.write(ex.GetWriteArgs())}}
	case ex.GetDeleteArgs() != nil:
		return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_DeleteResult{DeleteResult: w.delete(ex.GetDeleteArgs())}}
	case ex.GetLsArgs() != nil:
		return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_LsResult{LsResult: w.ls(ex.GetLsArgs())}}
	case ex.GetGrepArgs() != nil:
		return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_GrepResult{GrepResult: w.grep(ex.GetGrepArgs())}}
	case ex.GetMcpArgs() != nil:
		r := &agentv1.McpResult{Result: &agentv1.McpResult_Error{Error: &agentv1.McpError{Error: "no MCP servers here"}}}
		if w.MCP != nil {
			r = w.MCP(ex.GetMcpArgs())
		}
		return &agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_McpResult{McpResult: r}}
	}
	return &agentv1.ExecClientMessage{}
}

func (w *Workspace) read(a *agentv1.ReadArgs) *agentv1.ReadResult {
	data, err := os.ReadFile(w.abs(a.GetPath()))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &agentv1.ReadResult{Result: &agentv1.ReadResult_FileNotFound{FileNotFound: &agentv1.ReadFileNotFound{Path: a.GetPath()}}}
	case err != nil:
		return &agentv1.ReadResult{Result: &agentv1.ReadResult_Error{Error: &agentv1.ReadError{Path: a.GetPath(), Error: err.Error()}}}
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		// The client returns a file that is not text as bytes.
		return &agentv1.ReadResult{Result: &agentv1.ReadResult_Success{Success: &agentv1.ReadSuccess{
			Path: a.GetPath(), FileSize: int64(len(data)), Output: &agentv1.ReadSuccess_Data{Data: data}}}}
	}
	return &agentv1.ReadResult{Result: &agentv1.ReadResult_Success{Success: &agentv1.ReadSuccess{
		Path: a.GetPath(), TotalLines: int32(strings.Count(string(data), "\n")), FileSize: int64(len(data)),
		Output: &agentv1.ReadSuccess_Content{Content: string(data)}}}}
}

func (w *Workspace) write(a *agentv1.WriteArgs) *agentv1.WriteResult {
	p := w.abs(a.GetPath())
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return &agentv1.WriteResult{Result: &agentv1.WriteResult_Error{Error: &agentv1.WriteError{Path: a.GetPath(), Error: err.Error()}}}
	}
	if err := os.WriteFile(p, []byte(a.GetFileText()), 0o644); err != nil {
		return &agentv1.WriteResult{Result: &agentv1.WriteResult_Error{Error: &agentv1.WriteError{Path: a.GetPath(), Error: err.Error()}}}
	}
	ok := &agentv1.WriteSuccess{Path: a.GetPath(), LinesCreated: int32(strings.Count(a.GetFileText(), "\n") + 1), FileSize: int32(len(a.GetFileText()))}
	if a.GetReturnFileContentAfterWrite() {
		after, err := os.ReadFile(p)
		if err == nil {
			s := string(after)
			ok.FileContentAfterWrite = &s
		}
	}
	return &agentv1.WriteResult{Result: &agentv1.WriteResult_Success{Success: ok}}
}

func (w *Workspace) delete(a *agentv1.DeleteArgs) *agentv1.DeleteResult {
	p := w.abs(a.GetPath())
	prev, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return &agentv1.DeleteResult{Result: &agentv1.DeleteResult_FileNotFound{FileNotFound: &agentv1.DeleteFileNotFound{Path: a.GetPath()}}}
	}
	if err == nil {
		err = os.Remove(p)
	}
	if err != nil {
		return &agentv1.DeleteResult{Result: &agentv1.DeleteResult_Error{Error: &agentv1.DeleteError{Path: a.GetPath(), Error: err.Error()}}}
	}
	return &agentv1.DeleteResult{Result: &agentv1.DeleteResult_Success{Success: &agentv1.DeleteSuccess{
		Path: a.GetPath(), DeletedFile: p, FileSize: int64(len(prev)), PrevContent: string(prev)}}}
}

func (w *Workspace) ls(a *agentv1.LsArgs) *agentv1.LsResult {
	p := w.abs(a.GetPath())
	entries, err := os.ReadDir(p)
	if err != nil {
		return &agentv1.LsResult{Result: &agentv1.LsResult_Error{Error: &agentv1.LsError{Path: a.GetPath(), Error: err.Error()}}}
	}
	root := &agentv1.LsDirectoryTreeNode{AbsPath: p, ChildrenWereProcessed: true}
	for _, e := range entries {
		if e.IsDir() {
			root.ChildrenDirs = append(root.ChildrenDirs, &agentv1.LsDirectoryTreeNode{AbsPath: filepath.Join(p, e.Name())})
		} else {
			root.ChildrenFiles = append(root.ChildrenFiles, &agentv1.LsDirectoryTreeNode_File{Name: e.Name()})
			root.NumFiles++
		}
	}
	return &agentv1.LsResult{Result: &agentv1.LsResult_Success{Success: &agentv1.LsSuccess{DirectoryTreeRoot: root}}}
}

// grep searches with Go regexps; a glob matches the base name or, with a
// leading **/, any path suffix. An empty pattern lists the matching files.
func (w *Workspace) grep(a *agentv1.GrepArgs) *agentv1.GrepResult {
	re, err := regexp.Compile(a.GetPattern())
	if a.GetCaseInsensitive() {
		re, err = regexp.Compile("(?i)" + a.GetPattern())
	}
	if err != nil {
		return &agentv1.GrepResult{Result: &agentv1.GrepResult_Error{Error: &agentv1.GrepError{Error: err.Error()}}}
	}
	root := w.abs(a.GetPath())
	glob := strings.TrimPrefix(a.GetGlob(), "**/")
	content := &agentv1.GrepContentResult{}
	files := &agentv1.GrepFilesResult{}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(w.Root, p)
		if glob != "" {
			if ok, _ := filepath.Match(glob, d.Name()); !ok {
				if ok, _ := filepath.Match(glob, rel); !ok {
					return nil
				}
			}
		}
		if a.GetPattern() == "" {
			files.Files = append(files.Files, rel)
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		fm := &agentv1.GrepFileMatch{File: rel}
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			if re.MatchString(sc.Text()) {
				fm.Matches = append(fm.Matches, &agentv1.GrepContentMatch{LineNumber: int32(n), Content: sc.Text()})
			}
		}
		if len(fm.Matches) > 0 {
			content.Matches = append(content.Matches, fm)
			files.Files = append(files.Files, rel)
		}
		return nil
	})
	u := &agentv1.GrepUnionResult{Result: &agentv1.GrepUnionResult_Content{Content: content}}
	if a.GetPattern() == "" || a.GetOutputMode() == "files_with_matches" {
		files.TotalFiles = int32(len(files.Files))
		u = &agentv1.GrepUnionResult{Result: &agentv1.GrepUnionResult_Files{Files: files}}
	}
	return &agentv1.GrepResult{Result: &agentv1.GrepResult_Success{Success: &agentv1.GrepSuccess{
		Pattern: a.GetPattern(), Path: a.GetPath(), OutputMode: a.GetOutputMode(),
		WorkspaceResults: map[string]*agentv1.GrepUnionResult{w.Root: u}}}}
}

// shell runs the command with sh in the workspace, streaming stdout and
// stderr line by line, then the exit code. An abort kills the command.
func (w *Workspace) shell(ctx context.Context, a *agentv1.ShellArgs, send func(*agentv1.ExecClientMessage)) {
	ev := func(e *agentv1.ShellStream) {
		send(&agentv1.ExecClientMessage{Message: &agentv1.ExecClientMessage_ShellStream{ShellStream: e}})
	}
	dir := w.Root
	if a.GetWorkingDirectory() != "" {
		dir = w.abs(a.GetWorkingDirectory())
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", a.GetCommand())
	cmd.Dir = dir
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	ev(&agentv1.ShellStream{Event: &agentv1.ShellStream_Start{Start: &agentv1.ShellStreamStart{}}})
	began := time.Now()
	if err := cmd.Start(); err != nil {
		ev(&agentv1.ShellStream{Event: &agentv1.ShellStream_Exit{Exit: &agentv1.ShellStreamExit{Code: 127, Cwd: dir}}})
		return
	}
	done := make(chan struct{}, 2)
	pump := func(r interface{ Read([]byte) (int, error) }, wrap func(string) *agentv1.ShellStream) {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ev(wrap(sc.Text() + "\n"))
		}
		done <- struct{}{}
	}
	go pump(stdout, func(s string) *agentv1.ShellStream {
		return &agentv1.ShellStream{Event: &agentv1.ShellStream_Stdout{Stdout: &agentv1.ShellStreamStdout{Data: s}}}
	})
	go pump(stderr, func(s string) *agentv1.ShellStream {
		return &agentv1.ShellStream{Event: &agentv1.ShellStream_Stderr{Stderr: &agentv1.ShellStreamStderr{Data: s}}}
	})
	finished := make(chan struct{})
	go func() { <-done; <-done; close(finished) }()
	select {
	case <-finished:
	case <-w.bg.moved(a.GetToolCallId()):
		// The user moved the command to the background: the stream ends,
		// the command goes on.
		ev(&agentv1.ShellStream{Event: &agentv1.ShellStream_Backgrounded{Backgrounded: &agentv1.ShellStreamBackgrounded{
			Command: a.GetCommand(), WorkingDirectory: dir, Reason: agentv1.ShellBackgroundReason_SHELL_BACKGROUND_REASON_USER_REQUEST.Enum()}}})
		go func() { <-finished; _ = cmd.Wait() }()
		return
	}
	err := cmd.Wait()
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	}
	ms := int32(time.Since(began).Milliseconds())
	ev(&agentv1.ShellStream{Event: &agentv1.ShellStream_Exit{Exit: &agentv1.ShellStreamExit{
		Code: uint32(code), Cwd: dir, Aborted: ctx.Err() != nil, LocalExecutionTimeMs: &ms}}})
}
