// Package cmdk holds the rules of Cursor's inline edits (Cmd-K) served on
// an organisation's own model: what an inline-edit request says (the
// instruction, the selected lines, the lines around them, earlier
// instructions of the session, other context the user attached), how it
// becomes a compact prompt within a byte budget, and how the model's answer
// becomes the replacement lines the client streams into the editor. The
// terminal's Cmd-K (a shell command from an instruction and the terminal's
// recent output) has its prompt and decoder here too.
//
// The model answers the replacement lines only, never line numbers: the
// range is the selection's, known before the call, so the client can open
// the edit at once and the text streams into it line by line. A reply in a
// code fence is unwrapped as it streams (the opening fence is dropped, the
// answer ends at the closing one), since models fence code however they are
// told. Chat mode (the user asks about the code rather than for a change)
// answers prose as it comes.
//
// Place in the hexagon: domain. Imports: the standard library. It does no
// I/O: app/cmdk asks the model and the Cursor adapter translates the
// client's wire messages to Input and the decoders' output to the client's.
package cmdk
