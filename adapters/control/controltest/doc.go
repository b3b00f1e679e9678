// Package controltest provides in-memory stores behind every port the
// control use cases read (model configs, settings, call records with their
// details, conversations, prompts), for the control specs and the
// console's browser test server. They pass the console contract suite
// (porttest.DescribeConsoleStores) but keep nothing across restarts.
//
// Place in the hexagon: test support for adapters/control; Imports: the
// standard library, domain and ports.
package controltest
