// Package gitmsg holds the rules of the commit messages and branch names
// Cursor asks for, served on an organisation's own model: how the staged
// diff and the repository's recent commit messages become a compact prompt
// within a byte budget, and how the model's reply becomes a commit message
// (unwrapped, in the recent commits' style as the model was shown it) or a
// valid Git branch name.
//
// The recent messages are the style guide: the prompt shows them as they
// are and asks for the same shape (prefixes such as "fix:" or "area:",
// case, tense, length, body or none), which is how a person matches a
// repository's habits. The reply is cleaned of what models add around an
// answer (fences, quotes, a "Commit message:" label); a branch name is
// made a name `git check-ref-format --branch` accepts.
//
// Place in the hexagon: domain. Imports: the standard library. It does no
// I/O: app/cmdk asks the model and the Cursor adapter translates the
// client's messages.
package gitmsg
