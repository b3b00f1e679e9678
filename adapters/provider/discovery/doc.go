// Package discovery lists the models an endpoint offers, for the console's
// "discover models" action. It derives which URLs to ask from the configured
// base the way users paste it (a full request URL, a versioned base or a
// bare host), sends the custom headers and bounds and classifies every
// answer; how to authenticate and read the list is the protocol's own
// (protocol.Models, registered in adapters/provider).
//
// Place in the hexagon: adapter (driven side), beside the streaming adapters
// it shares failure classification with.
package discovery
