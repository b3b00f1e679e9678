// Package control serves Keygate's control API (keygate.control.v1 over
// Connect) and the embedded admin console, and runs the retention job.
//
// Place in the hexagon: driving adapter. The handlers translate between the
// generated protobuf types in gen/keygate and the use cases of app/control;
// they hold no rules of their own beyond mapping errors to Connect codes.
// It also holds one small driven adapter the console needs: Discovery
// (ports.ModelLister over the provider adapter's model listing).
package control
