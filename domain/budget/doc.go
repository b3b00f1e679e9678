// Package budget holds the per-user limits of a company deployment —
// tokens per day, cost per month, concurrent runs — and the rules that
// check them before a provider call and price a call afterwards.
//
// Place in the hexagon: domain. Imports: the standard library and
// domain/llm. Counting windows are calendar periods in UTC (a day, a month),
// named by keys the stores use as counter ids, so every replica adds to the
// same counter.
package budget
