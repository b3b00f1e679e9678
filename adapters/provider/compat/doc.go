// Package compat recognises the compatible endpoints that speak a vendor's
// protocol with deviations (DeepSeek, Kimi/Moonshot, GLM, Qwen/DashScope,
// MiniMax, OpenRouter, GitHub Copilot, Azure OpenAI) from the upstream model
// id and the request URL, once per call.
//
// Place in the hexagon: adapter support under adapters/provider. The
// deviations are endpoint facts, not protocol facts: DeepSeek and Kimi serve
// both an OpenAI and an Anthropic format, so every protocol package and the
// provider client read the same Quirks.
package compat
