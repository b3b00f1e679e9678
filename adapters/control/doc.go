// Package control serves Keygate's control API (keygate.control.v1 over
// Connect) and the embedded admin console, and runs the retention job.
//
// Place in the hexagon: driving adapter. The handlers translate between the
// generated protobuf types in gen/keygate and the use cases of app/control;
// they hold no rules of their own beyond mapping errors to Connect codes.
// What is HTTP's is here: every request bounded in bytes (MaxRequestBytes,
// compressed or not) and every response, refusals included, carrying the
// console's security headers (SecurityHeaders); field limits are rules of
// what Keygate stores and live in app/control.
// It also holds one small driven adapter the console needs: Discovery
// (ports.ModelLister over the provider adapter's model listing).
package control
