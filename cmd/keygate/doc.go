// Command keygate runs the Keygate gateway.
//
//	keygate [serve] [--data-dir DIR] [--listen ADDR] [--log-format auto|console|json] [--log-level LEVEL]
//	keygate doctor [--cursor-settings FILE] [serve flags]
//	keygate secret rotate | adopt, keygate ca export | adopt, keygate cursor setup
//	keygate version
//
// Place in the hexagon: the outermost shell. It parses the command line,
// builds the object graph through the composition root (package app) and
// turns SIGINT/SIGTERM into a graceful shutdown.
package main
