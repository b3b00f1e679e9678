// Package control holds the use cases of the admin console, one job each:
// [Models] (the models Keygate publishes), [Providers] (where they are
// called, with write-only API keys and custom headers sealed together with
// the origin they may be sent to: see keybinding.go), [Aliases],
// [Discovery] of upstream models, the connection [Tester] over
// [Endpoints], [Publishing] (what Cursor's picker offers), the router's
// [Catalog], the start-up [KeyBinding] migration; reading call records
// with their cache-break insight, aggregating them for the dashboard,
// browsing conversations, service settings, the [FeatureModel] of each
// feature served apart from the picker (Tab, inline edits, commit
// messages: the setting, the configuration, else a default such as the
// user's last Agent model) and the retention of detailed
// records. What several of them share is a small unexported value:
// sealing (seal and open keys and headers, derive origins) and configs
// (read models and providers).
//
// Privacy: the cache-break insight needs each call's prompt, but the text
// of a conversation is kept only in detailed mode. Otherwise [PromptTap]
// keeps the prompt's shape (domain/prefix: a digest per model-visible
// value, roles and sizes), from which the insight still names the first
// field and message that differ; retention deletes both kinds by age.
//
// Every input is checked when saved, with the limits in limits.go, and an
// invalid one is an *InvalidError naming the API's field; nothing is
// stored half.
//
// Place in the hexagon: application. Imports: the standard library, domain,
// ports and golang.org/x/net/http/httpguts (the HTTP header grammar); the
// Connect handlers in adapters/control translate its values to the API.
//
// Dashboard aggregates are computed here over the listed call records rather
// than by SQL in each store: one implementation serves SQLite and PostgreSQL,
// and the prices that turn tokens into cost live in settings anyway. The cost
// is a scan of the records in the chosen range. The Agent figures count
// Agent calls only; Tab calls are grouped into requests (one per request id)
// and joined here with the fates the store selects for the same range, and
// their median time to first text is computed here too, which neither
// engine's SQL would do alike.
package control
