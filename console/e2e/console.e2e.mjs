// Browser test of the console against the real Keygate started here
// (e2e/server: app.Initialize over a temporary data dir): add a provider
// pointing at the fake provider, discover its models, run the connection
// test, run two turns of one conversation with the Cursor client simulator
// through Keygate's proxy, find the calls and their cache insight, the
// conversation list and branch tree and the dashboard, manage the
// provider's key pool and an alias over two models (reorder, drain, a turn
// on it), then create and revoke a personal token and read the audit log. Then the same as a member of a company Keygate (a
// second server in trusted-header mode, the browser sending the identity
// headers): models and settings read-only, calls and dashboard of their own
// turn only, and a demoted administrator's save refused with the server's
// message.
//
// Needs: the console built (npm run build), Go, and Debian's chromium
// (CHROMIUM, default /usr/bin/chromium). Screenshots go to E2E_SHOTS
// (default: a new temporary directory). Prints "N passed, N failed".
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const shots = process.env.E2E_SHOTS ?? mkdtempSync(join(tmpdir(), "keygate-e2e-"));
mkdirSync(shots, { recursive: true });
const timeout = 15_000;
const expected = 35; // steps below; fewer means one stopped the run

const bin = join(mkdtempSync(join(tmpdir(), "keygate-e2e-bin-")), "server");
execFileSync("go", ["build", "-o", bin, "./console/e2e/server"], { cwd: repo, stdio: "inherit" });

// startServer starts e2e/server with the auth mode ("local" or "header").
function startServer(auth) {
  const proc = spawn(bin, ["-auth", auth], { stdio: ["pipe", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    proc.stdout.on("data", (d) => {
      out += d;
      const u = out.match(/KEYGATE_E2E_URL=(\S+)/);
      const h = out.match(/KEYGATE_E2E_HOOKS=(\S+)/);
      if (u && h) resolve({ proc, url: u[1], hooks: h[1] });
    });
    proc.on("exit", (code) => reject(new Error(`e2e server exited with ${code}`)));
  });
}

const results = [];
async function step(name, fn) {
  try {
    await fn();
    results.push(true);
    console.log(`ok - ${name}`);
  } catch (err) {
    results.push(false);
    console.log(`not ok - ${name}\n  ${String(err?.stack ?? err).split("\n").join("\n  ")}`);
    throw err;
  }
}

const [{ proc, url, hooks }, company] = await Promise.all([startServer("local"), startServer("header")]);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync"],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
page.on("dialog", (d) => d.accept()); // the delete confirmation
page.setDefaultTimeout(timeout);
let current = page; // the page a failure screenshot shows
const shot = (name, p = page) => p.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
const api = async (path, body, headers = {}, base = url) => {
  const r = await fetch(base + path, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body ?? {}) });
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return r.json();
};
// The company server believes these headers from 127.0.0.1 (e2e/server).
const ada = { "X-Keygate-User": "ada", "X-Keygate-Name": "Ada Admin", "X-Keygate-Groups": "keygate-admins" };
const mel = { "X-Keygate-User": "mel", "X-Keygate-Name": "Mel Member", "X-Keygate-Groups": "developers" };

try {
  const providerURL = await (await fetch(hooks + "/e2e/provider")).text();

  await step("turns on detailed mode in Settings", async () => {
    await page.goto(url + "/settings");
    await page.getByText("Detailed mode").click();
    await page.getByRole("button", { name: "Add price" }).click();
    const price = page.locator("tbody tr").first().locator("input");
    await price.nth(0).fill("fake-large");
    await price.nth(1).fill("2");
    await price.nth(2).fill("8");
    await price.nth(3).fill("0.5");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved.").waitFor();
    await shot("1-settings");
  });

  await step("says what to do when discovery cannot reach the provider", async () => {
    await page.goto(url + "/models");
    await page.getByRole("button", { name: "Add model" }).click();
    await page.getByLabel("Base URL", { exact: true }).fill("http://127.0.0.1:9/v1");
    await page.getByLabel("API key", { exact: true }).fill("sk-e2e-0123456789abcdef");
    await page.getByRole("button", { name: "Discover models" }).click();
    await page.getByRole("alert").getByText("check the base URL").waitFor();
    await shot("2-discovery-error");
  });

  // Cloud protocols (Bedrock, Vertex AI) need a provider's account settings,
  // so a model's own connection offers only the key-based ones.
  await step("offers the key-based protocols the control API lists, Chat Completions first", async () => {
    const choices = await page.getByLabel("Protocol", { exact: true }).locator("option").allInnerTexts();
    const want = ["OpenAI Chat Completions (and compatible)", "OpenAI Responses", "Anthropic Messages", "Google Gemini API (generateContent)",
      "OpenAI Completions with suffix (fill-in-the-middle: DeepSeek, vLLM, Ollama, llama.cpp, LM Studio)", "Mistral FIM (Codestral)"];
    if (JSON.stringify(choices) !== JSON.stringify(want)) throw new Error(`protocol choices: ${JSON.stringify(choices)}`);
  });

  await step("adds a provider and picks a discovered model", async () => {
    await page.getByLabel("Base URL", { exact: true }).fill(providerURL);
    await page.getByLabel("API key", { exact: true }).fill("sk-e2e-0123456789abcdef");
    await page.getByRole("button", { name: "Discover models" }).click();
    await page.getByRole("button", { name: "fake-small" }).waitFor();
    await shot("3-discovered");
    await page.getByRole("button", { name: "fake-large" }).click();
    await page.getByLabel("Display name", { exact: true }).fill("Fake Large");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByTestId("model-row").filter({ hasText: "Fake Large" }).waitFor();
    await page.getByText(`OpenAI Chat · ${providerURL}`, { exact: true }).waitFor();
    const row = await page.getByTestId("model-row").innerText();
    if (!row.includes("sk-…cdef")) throw new Error(`key hint missing in: ${row}`);
    if (row.includes("0123456789")) throw new Error("the model row shows the API key");
  });

  await step("edits, duplicates and reorders models, keeping the key", async () => {
    await page.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Display name", { exact: true }).fill("Fake Large (edited)");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByTestId("model-row").filter({ hasText: "Fake Large (edited)" }).waitFor();
    await page.getByRole("button", { name: "Duplicate" }).click();
    await page.getByText("Fake Large (edited) (copy)").waitFor();
    await page.getByTestId("model-row").nth(1).getByTitle("Move up").click();
    await page.getByTestId("model-row").first().getByText("Fake Large (edited) (copy)").waitFor();
    const { models } = await api("/keygate.control.v1.ModelService/ListModels");
    if (models.length !== 2 || !models.every((m) => m.apiKeyHint === "sk-…cdef")) throw new Error(JSON.stringify(models));
    await page.getByTestId("model-row").first().getByRole("button", { name: "Delete" }).click();
    await page.getByTestId("model-row").nth(1).waitFor({ state: "detached" });
  });

  await step("runs the connection test", async () => {
    await page.getByRole("button", { name: "Test connection" }).click();
    const result = page.getByTestId("test-result");
    await result.getByText("Connection works").waitFor();
    await result.getByText("Show raw response").click();
    await page.getByText("data: [DONE]").first().waitFor();
    await shot("4-connection-test");
  });

  let turnText = "";
  await step("runs one turn with the Cursor client simulator", async () => {
    const { models } = await api("/keygate.control.v1.ModelService/ListModels");
    const r = await fetch(`${hooks}/e2e/turn?conversation=e2e-conv&model=${models[0].id}&text=hello`, { method: "POST" });
    if (!r.ok) throw new Error(`turn: ${r.status} ${await r.text()}`);
    turnText = (await r.json()).texts.join("");
    if (turnText !== "Hello from the fake provider.") throw new Error(`turn answered ${JSON.stringify(turnText)}`);
  });

  await step("finds the turn's call on the Calls page", async () => {
    await page.goto(url + "/calls");
    const row = page.getByTestId("call-row").filter({ hasText: "e2e-conv" });
    await row.waitFor();
    if ((await page.getByTestId("call-row").count()) !== 2) throw new Error("expected the test call and the turn's call");
    const user = await row.getByTestId("call-user").innerText();
    if (user !== "local") throw new Error(`the turn's call shows user ${JSON.stringify(user)}, want "local"`);
    await shot("5-calls");
  });

  await step("filters the calls by user, from the filter and from a user cell", async () => {
    await page.getByLabel("User filter").fill("nobody");
    await page.getByText("No calls match.").waitFor();
    if (new URL(page.url()).searchParams.get("user") !== "nobody") throw new Error(`the URL ${page.url()} lacks user=nobody`);
    await page.getByLabel("User filter").fill("");
    const row = page.getByTestId("call-row").filter({ hasText: "e2e-conv" });
    await row.getByRole("button", { name: "local" }).click();
    await page.waitForURL((u) => u.searchParams.get("user") === "local");
    if ((await page.getByLabel("User filter").inputValue()) !== "local") throw new Error("the user cell did not fill the filter");
    await row.waitFor();
    const users = await page.getByTestId("call-user").allInnerTexts();
    if (users.length === 0 || users.some((u) => u !== "local")) throw new Error(`filtered by local, the list shows users ${JSON.stringify(users)}`);
    await page.reload();
    await row.waitFor();
    if ((await page.getByLabel("User filter").inputValue()) !== "local") throw new Error("the user filter did not survive a reload");
    await shot("5b-calls-by-user");
    await row.click();
  });

  await step("opens the call's details with timeline, cache insight and raw stream", async () => {
    await page.getByTestId("timeline").waitFor();
    await page.getByTestId("cache-insight").getByText("first call of the conversation").waitFor();
    const raw = await page.getByTestId("raw-stream").innerText();
    if (!raw.includes("Hello")) throw new Error("raw stream lacks the answer");
    await page.getByText('"content": "<user_query>\\nhello').waitFor();
    const user = await page.getByTestId("call-user").innerText();
    if (user !== "local") throw new Error(`the details show user ${JSON.stringify(user)}, want "local"`);
    await shot("6-call-details");
  });

  await step("shows a follow-up turn's prompt as a stable prefix of the first", async () => {
    const { models } = await api("/keygate.control.v1.ModelService/ListModels");
    const r = await fetch(`${hooks}/e2e/turn?conversation=e2e-conv&model=${models[0].id}&text=and+again`, { method: "POST" });
    if (!r.ok) throw new Error(`turn: ${r.status} ${await r.text()}`);
    await page.goto(url + "/calls?conversation=e2e-conv");
    const rows = page.getByTestId("call-row");
    await rows.nth(1).waitFor();
    await rows.first().click();
    await page.getByTestId("cache-insight").getByText("stable: the prompt extends the previous call's 2 messages").waitFor();
    await shot("7-cache-insight");
  });

  await step("lists the conversation with its title, user, model and turns, and searches the list", async () => {
    await page.goto(url + "/conversations");
    const row = page.getByTestId("conversation-row").filter({ hasText: "e2e-conv" });
    await row.waitFor();
    const text = await row.innerText();
    if (text.includes("user_query")) throw new Error(`the title keeps the query tag: ${JSON.stringify(text)}`);
    for (const want of ["hello", "local", "Fake Large (edited)", "2"]) {
      if (!text.includes(want)) throw new Error(`the conversation row reads ${JSON.stringify(text)}, without ${want}`);
    }
    await page.getByLabel("Search conversations").fill("no such conversation");
    await page.getByText("No conversations match.").waitFor();
    if (new URL(page.url()).searchParams.get("q") !== "no such conversation") throw new Error(`the URL ${page.url()} lacks the search`);
    await page.getByLabel("Search conversations").fill("HELLO");
    await row.waitFor();
    await shot("8a-conversations");
  });

  await step("shows the turn in the conversation's branch tree", async () => {
    await page.goto(url + "/conversations");
    await page.getByTestId("conversation-row").filter({ hasText: "e2e-conv" }).getByRole("link").click();
    await page.getByTestId("branch-tree").getByText("head").waitFor();
    await page.getByText("and again").waitFor();
    if ((await page.getByText("Hello from the fake provider.").count()) !== 2) throw new Error("expected both answers in the head checkpoint");
    await shot("8-conversation");
  });

  await step("shows the Connect Cursor page", async () => {
    await page.goto(url + "/setup");
    await page.getByText("Download CA certificate").waitFor();
    await page.getByText("keygate cursor setup --proxy").waitFor();
    // The agent's web tools: fetch on by default, search not configured and
    // the setting that offers it named.
    const tools = page.getByTestId("agent-tools");
    await tools.getByText("WebFetch").waitFor();
    await tools.getByText("not configured: set KEYGATE_WEB_SEARCH=searxng").waitFor();
    await shot("9-setup");
  });

  await step("shows the calls on the dashboard", async () => {
    await page.goto(url + "/");
    await page.getByText("Cache hit rate").waitFor();
    await page.getByRole("cell", { name: "fake-large" }).waitFor();
    // Every routed turn counts for its target: here the one provider's model.
    await page.getByTestId("target-row").filter({ hasText: "Fake Large (edited)" }).waitFor();
    // 2 Agent calls (the connection test earlier is a call of kind test, outside the Agent
    // figures), each 120 fresh input, 880 cache read, 20 output tokens at 2/8/0.5 USD per million.
    await page.getByText("$0.0017").first().waitFor();
    const local = page.getByTestId("user-row").filter({ hasText: "local" });
    await local.waitFor();
    if (!(await local.innerText()).includes("$0.0017")) throw new Error(`the per-user row reads ${JSON.stringify(await local.innerText())}`);
    await shot("10-dashboard");
  });

  await step("filters the dashboard by user from the per-user table and the user filter", async () => {
    await page.getByTestId("user-row").filter({ hasText: "local" }).click();
    await page.waitForURL((u) => u.searchParams.get("user") === "local");
    if ((await page.getByLabel("User filter").inputValue()) !== "local") throw new Error("the user row did not fill the filter");
    await page.getByText("$0.0017").first().waitFor();
    const users = await page.getByTestId("user-row").allInnerTexts();
    if (users.length !== 1 || !users[0].startsWith("local")) throw new Error(`filtered by local, the per-user table reads ${JSON.stringify(users)}`);
    await shot("10b-dashboard-by-user");
    await page.getByLabel("User filter").fill("nobody");
    await page.getByText("No finished calls in this range.").first().waitFor();
    if ((await page.getByTestId("user-row").count()) !== 0) throw new Error("filtered by nobody, the per-user table still has rows");
  });

  await step("names a mode switch as the cause of the call that broke the cache", async () => {
    const { models } = await api("/keygate.control.v1.ModelService/ListModels");
    const r = await fetch(`${hooks}/e2e/turn?conversation=e2e-conv&model=${models[0].id}&text=plan+it&mode=plan`, { method: "POST" });
    if (!r.ok) throw new Error(`turn: ${r.status} ${await r.text()}`);
    await page.goto(url + "/calls?conversation=e2e-conv");
    const rows = page.getByTestId("call-row");
    await rows.nth(2).waitFor();
    await rows.first().click();
    await page.getByTestId("cache-insight").getByText("Cause: mode switch (agent to plan)").waitFor();
    const causes = await page.getByTestId("cache-cause").allInnerTexts();
    if (JSON.stringify(causes) !== JSON.stringify(["mode switch"])) throw new Error(`causes ${JSON.stringify(causes)}, want ["mode switch"]`);
    await shot("7b-cache-cause");
  });

  let providerID = "";
  await step("shows the model's provider with its key masked and healthy, then adds, rotates and disables keys", async () => {
    await page.goto(url + "/providers");
    const card = page.getByTestId("provider-card");
    await card.getByTestId("key-row").first().getByText("healthy").waitFor();
    if (!(await card.innerText()).includes("sk-…cdef")) throw new Error("the key hint is missing");
    await card.getByLabel("Add a key").fill("sk-e2e-second-0123456789wxyz");
    await card.getByRole("button", { name: "Add key" }).click();
    await card.getByText("sk-…wxyz").waitFor();
    const second = card.getByTestId("key-row").filter({ hasText: "sk-…wxyz" });
    await second.getByRole("button", { name: "Rotate" }).click();
    await second.getByLabel("New API key").fill("sk-e2e-rotated-0123456789rota");
    await second.getByRole("button", { name: "Save new key" }).click();
    const rotated = card.getByTestId("key-row").filter({ hasText: "sk-…rota" });
    await rotated.waitFor();
    await rotated.getByRole("button", { name: "Disable" }).click();
    await rotated.getByText("disabled by an administrator").waitFor();
    if ((await page.getByTestId("disabled-keys").count()) !== 0) throw new Error("an administrator's own disabling shows as Keygate's warning");
    if ((await page.locator("main").innerText()).includes("0123456789")) throw new Error("the Providers page shows a key");
    const { providers } = await api("/keygate.control.v1.ProviderService/ListProviders");
    if (providers.length !== 1 || providers[0].keys.length !== 2) throw new Error(JSON.stringify(providers));
    providerID = providers[0].id;
    await shot("9a-providers");
  });

  let aliasID = "";
  await step("creates an alias over two models, reorders its targets and drains one", async () => {
    await api("/keygate.control.v1.ModelService/CreateModel", {
      settings: { providerId: providerID, modelId: "fake-small", displayName: "Fake Small" }, enabled: true });
    await page.goto(url + "/aliases");
    await page.getByRole("button", { name: "Add alias" }).click();
    await page.getByLabel("Alias name").fill("Fake Anywhere");
    await page.getByLabel("Fake Large (edited)").check();
    await page.getByLabel("Fake Small").check();
    await page.getByRole("button", { name: "Save alias" }).click();
    const card = page.getByTestId("alias-card");
    await card.getByTestId("target-row").nth(1).waitFor();
    await card.getByTestId("target-row").first().getByTitle("Move down").click();
    await card.getByTestId("target-row").first().getByText("Fake Small").waitFor();
    await card.getByTestId("target-row").first().getByRole("button", { name: "Drain" }).click();
    await card.getByTestId("target-row").first().getByText("drained").waitFor();
    const { aliases } = await api("/keygate.control.v1.AliasService/ListAliases");
    aliasID = aliases[0].id;
    const t = aliases[0].settings.targets;
    if (t.length !== 2 || t[0].modelId === t[1].modelId || !t[0].drained || t[1].drained) throw new Error(JSON.stringify(t));
    await shot("9b-aliases");
  });

  await step("runs a turn on the alias, which the target still in service answers", async () => {
    const r = await fetch(`${hooks}/e2e/turn?conversation=e2e-alias&model=${aliasID}&text=hi+alias`, { method: "POST" });
    if (!r.ok) throw new Error(`turn: ${r.status} ${await r.text()}`);
    const text = (await r.json()).texts.join("");
    if (text !== "Hello from the fake provider.") throw new Error(`the alias turn answered ${JSON.stringify(text)}`);
    const { calls } = await api("/keygate.control.v1.CallService/ListCalls", { filter: { conversationId: "e2e-alias" } });
    if (calls.length !== 1 || calls[0].route?.routeId !== aliasID || calls[0].model.modelId !== "fake-large") throw new Error(JSON.stringify(calls));
  });

  await step("names the signed-in user and role in the nav", async () => {
    const who = await page.getByTestId("whoami").innerText();
    if (!who.includes("local user") || !who.includes("admin")) throw new Error(`nav shows ${JSON.stringify(who)}`);
  });

  let secret = "";
  await step("creates a personal token and shows its secret once, with the proxy and setup hint", async () => {
    await page.goto(url + "/access");
    await page.getByText("No tokens yet.").waitFor();
    await page.getByLabel("Token name").fill("e2e laptop");
    await page.getByRole("button", { name: "Create token" }).click();
    secret = (await page.getByTestId("new-token-secret").innerText()).trim();
    if (secret.length < 20) throw new Error(`token text ${JSON.stringify(secret)}`);
    await page.getByTestId("new-token").getByText("shows it only this once").waitFor();
    await page.getByTestId("new-token").getByText("Proxy address").waitFor();
    await page.getByTestId("token-row").filter({ hasText: "e2e laptop" }).getByText("never").first().waitFor();
    await shot("11-token-created");
    await page.reload();
    await page.getByTestId("token-row").filter({ hasText: "e2e laptop" }).waitFor();
    if ((await page.content()).includes(secret)) throw new Error("the token's text is still on the page after a reload");
    const listed = await (await fetch(url + "/auth/tokens")).text();
    if (listed.includes(secret)) throw new Error("the token list carries the token's text");
  });

  await step("revokes the token after confirmation", async () => {
    const row = page.getByTestId("token-row").filter({ hasText: "e2e laptop" });
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByText("revoked").waitFor();
    if ((await row.getByRole("button", { name: "Revoke" }).count()) !== 0) throw new Error("a revoked token still offers Revoke");
    const { tokens } = await (await fetch(url + "/auth/tokens")).json();
    if (tokens.length !== 1 || !tokens[0].revokedAt) throw new Error(JSON.stringify(tokens));
    await shot("12-token-revoked");
  });

  await step("creates a read-only service account whose key reads the models and changes nothing, then revokes it", async () => {
    await page.getByLabel("Service account name").fill("e2e monitoring");
    await page.getByRole("button", { name: "Create service account" }).click();
    const key = (await page.getByTestId("new-service-key-secret").innerText()).trim();
    if (!key.startsWith("kg_")) throw new Error(`service account key ${JSON.stringify(key)}`);
    const call = (procedure, body) => fetch(url + "/keygate.control.v1." + procedure, {
      method: "POST", headers: { "Content-Type": "application/json", Authorization: "Bearer " + key }, body: JSON.stringify(body ?? {}),
    });
    let r = await call("ModelService/ListModels");
    if (r.status !== 200) throw new Error(`a read-only key listing models got ${r.status}`);
    r = await call("ModelService/DeleteModel", { id: "any" });
    if (r.status !== 403) throw new Error(`a read-only key deleting a model got ${r.status}`);
    const row = page.getByTestId("service-account-row").filter({ hasText: "e2e monitoring" });
    await row.getByText("read-only").waitFor();
    await page.getByTestId("new-service-key").getByRole("button", { name: "Done, I have copied it" }).click();
    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByText("revoked").waitFor();
    r = await call("ModelService/ListModels");
    if (r.status !== 401) throw new Error(`a revoked key got ${r.status}`);
    await shot("13-service-account-revoked");
  });

  await step("lists model, provider, alias, setting and token changes in the audit log with the API keys masked", async () => {
    const rows = page.getByTestId("audit-row");
    await rows.filter({ hasText: "model.delete" }).first().waitFor();
    await rows.filter({ hasText: "model.put" }).first().waitFor();
    await rows.filter({ hasText: "alias.put" }).first().waitFor();
    await rows.filter({ hasText: "setting.put" }).first().waitFor();
    await rows.filter({ hasText: "token.create" }).first().waitFor();
    await rows.filter({ hasText: "token.revoke" }).first().waitFor();
    await rows.filter({ hasText: "created “Fake Large”" }).first().waitFor();
    const created = rows.filter({ hasText: "provider.put" }).filter({ hasText: "created" }).last();
    await created.getByText("created “").click();
    await created.getByText('"apiKey":"[set]"').waitFor();
    const text = await page.locator("main").innerText();
    if (text.includes("0123456789")) throw new Error("the audit log shows the provider API key");
    await shot("13-audit-log");
  });

  // A company Keygate: Ada administers it, Mel is a member.
  const companyProvider = await (await fetch(company.hooks + "/e2e/provider")).text();
  const member = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  member.setDefaultTimeout(timeout);
  await member.setExtraHTTPHeaders(mel);
  current = member;

  await step("company: the administrator adds a model and prices, each user runs a turn with their own token", async () => {
    const { model } = await api("/keygate.control.v1.ModelService/CreateModel", {
      settings: { providerKind: "PROVIDER_KIND_OPENAI_CHAT", baseUrl: companyProvider, modelId: "fake-large", displayName: "Fake Large" },
      apiKey: "sk-e2e-0123456789abcdef", enabled: true,
    }, ada, company.url);
    await api("/keygate.control.v1.SettingService/UpdateSettings", {
      settings: { prices: [{ modelId: "fake-large", inputPerMillion: 2, outputPerMillion: 8, cacheReadPerMillion: 0.5 }] },
    }, ada, company.url);
    for (const [who, conv] of [[ada, "ada-conv"], [mel, "mel-conv"]]) {
      const { secret } = await (await fetch(company.url + "/auth/tokens", {
        method: "POST", headers: { "Content-Type": "application/json", ...who }, body: JSON.stringify({ name: conv, ttlDays: 0 }),
      })).json();
      const r = await fetch(`${company.hooks}/e2e/turn?conversation=${conv}&model=${model.id}&text=hello&token=${encodeURIComponent(secret)}`, { method: "POST" });
      if (!r.ok) throw new Error(`${conv} turn: ${r.status} ${await r.text()}`);
    }
  });

  await step("company: a member sees the models with the key masked and no action that would be refused", async () => {
    await member.goto(company.url + "/models");
    const row = member.getByTestId("model-row").filter({ hasText: "Fake Large" });
    await row.waitFor();
    await member.getByTestId("role-note").getByText("Models are managed by your Keygate administrators.").waitFor();
    const text = await row.innerText();
    if (!text.includes("key set") || text.includes("sk-") || text.includes("0123456789")) throw new Error(`the member's model row reads ${JSON.stringify(text)}`);
    for (const name of ["Add model", "Edit", "Duplicate", "Delete", "Test connection", "Discover models"]) {
      if ((await member.getByRole("button", { name }).count()) !== 0) throw new Error(`a member is offered "${name}"`);
    }
    if ((await member.getByTitle("Move up").count()) + (await member.getByRole("checkbox").count()) !== 0) throw new Error("a member can reorder or switch models");
    await row.getByText("in Cursor").waitFor();
    const who = await member.getByTestId("whoami").innerText();
    if (!who.includes("Mel Member") || !who.includes("member")) throw new Error(`nav shows ${JSON.stringify(who)}`);
    await shot("14-member-models", member);
  });

  await step("company: a member reads the settings without a way to change them", async () => {
    await member.goto(company.url + "/settings");
    await member.getByTestId("role-note").waitFor();
    const price = member.locator("tbody tr").first().locator("input");
    if ((await price.nth(0).inputValue()) !== "fake-large") throw new Error("the member does not see the administrator's price");
    if (!(await price.nth(1).isDisabled()) || !(await member.getByRole("checkbox").isDisabled())) throw new Error("a member can edit the settings");
    for (const name of ["Save", "Add price", "Remove"]) {
      if ((await member.getByRole("button", { name }).count()) !== 0) throw new Error(`a member is offered "${name}"`);
    }
    await shot("15-member-settings", member);
  });

  await step("company: a member's Calls page shows their own call only, without the user filter", async () => {
    // A user filter in the link (an administrator's, say) does not apply to a member.
    await member.goto(company.url + "/calls?user=ada");
    await member.getByTestId("role-note").getByText("your own calls only").waitFor();
    await member.getByTestId("call-row").filter({ hasText: "mel-conv" }).waitFor();
    if ((await member.getByTestId("call-row").count()) !== 1) throw new Error("the member sees calls other than their own turn's");
    if ((await member.getByLabel("User filter").count()) !== 0) throw new Error("the member is offered the user filter");
    await shot("16-member-calls", member);
  });

  await step("company: a member's dashboard sums their own call only, without the user filter", async () => {
    await member.goto(company.url + "/");
    await member.getByTestId("role-note").getByText("your own calls only").waitFor();
    await member.getByText("Cache hit rate").waitFor();
    // Ada's turn would make it 2.
    await member.getByText("1 completed · 0 failed · 0 cancelled").waitFor();
    if ((await member.getByLabel("User filter").count()) + (await member.getByTestId("user-row").count()) !== 0) throw new Error("the member is offered the per-user view");
    await shot("17-member-dashboard", member);
  });

  await step("company: the administrator marks Mel's group as a team limited to one model; Mel sees it charged", async () => {
    await member.setExtraHTTPHeaders(ada);
    await member.goto(company.url + "/teams");
    await member.getByRole("button", { name: "developers" }).click();
    const form = member.getByTestId("team-form");
    await form.getByText("Only the models below").click();
    await form.getByRole("checkbox", { name: "Fake Large" }).check();
    await form.getByRole("button", { name: "Save team" }).click();
    const row = member.getByTestId("team-row").filter({ hasText: "developers" });
    await row.getByText("mel").waitFor();
    await row.getByText("Fake Large").waitFor();
    await shot("19-admin-teams", member);
    await member.setExtraHTTPHeaders(mel);
    await member.goto(company.url + "/teams");
    await member.getByTestId("my-teams").getByText("charged").waitFor();
    if ((await member.getByText("All teams").count()) !== 0) throw new Error("a member sees every team");
  });

  await step("company: the Spend page shows a member their own spend, an administrator everyone's per team", async () => {
    await member.goto(company.url + "/spend");
    await member.getByTestId("spend-row").filter({ hasText: "developers" }).waitFor();
    if ((await member.getByTestId("spend-row").count()) !== 1) throw new Error("the member sees spend other than their own");
    if ((await member.getByLabel("Filter by team").count()) !== 0) throw new Error("the member is offered the team filter");
    await member.setExtraHTTPHeaders(ada);
    await member.goto(company.url + "/spend");
    await member.getByLabel("Filter by team").waitFor();
    await member.getByTestId("spend-row").nth(1).waitFor();
    const csv = await api("/keygate.control.v1.SpendService/GetSpendReport", { csv: true }, ada, company.url);
    if (!csv.csv.startsWith("day,team,user_id,model_id")) throw new Error(`the CSV reads ${JSON.stringify(csv.csv)}`);
    await shot("20-admin-spend", member);
    await member.setExtraHTTPHeaders(mel);
  });

  await step("company: an administrator sets a member's budget on the Budgets page", async () => {
    const admin = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    admin.setDefaultTimeout(timeout);
    await admin.setExtraHTTPHeaders(ada);
    current = admin;
    await admin.goto(company.url + "/budgets");
    await admin.getByRole("heading", { name: "Your budget" }).waitFor();
    await admin.getByLabel("Applies to").selectOption({ label: "User" });
    await admin.getByLabel("Scope id").fill("mel");
    await admin.getByLabel("Tokens per day").fill("5000");
    await admin.getByLabel("Cost per month (USD)").fill("12.5");
    await admin.getByRole("button", { name: "Save limits" }).click();
    const row = admin.getByTestId("limit-row").filter({ hasText: "User mel" });
    await row.waitFor();
    const text = await row.innerText();
    if (!text.includes("5,000") || !text.includes("$12.50")) throw new Error(`the limit row reads ${JSON.stringify(text)}`);
    await shot("18-budgets-admin", admin);
    await admin.close();
    current = member;
  });

  await step("company: a member reads their own budget and usage, without the limits or alerts", async () => {
    await member.goto(company.url + "/budgets");
    await member.getByText("your own limits").waitFor();
    await member.getByText(/of 5,000/).waitFor();
    for (const name of ["Save limits", "Save webhook", "Remove"]) {
      if ((await member.getByRole("button", { name }).count()) !== 0) throw new Error(`a member is offered "${name}"`);
    }
    await shot("19-budgets-member", member);
  });

  await step("company: an administrator demoted while the page is open sees the server's refusal on Save", async () => {
    await member.setExtraHTTPHeaders({ ...ada, "X-Keygate-User": "dee", "X-Keygate-Name": "Dee" });
    await member.goto(company.url + "/settings");
    await member.getByRole("button", { name: "Save", exact: true }).waitFor();
    await member.setExtraHTTPHeaders({ ...mel, "X-Keygate-User": "dee", "X-Keygate-Name": "Dee" });
    await member.getByRole("button", { name: "Save", exact: true }).click();
    await member.getByRole("alert").getByText("only an administrator may do this; ask one of your Keygate administrators").waitFor();
    await shot("20-demoted-save", member);
  });
} catch {
  await shot("failure", current).catch(() => {});
} finally {
  await browser.close();
  for (const p of [proc, company.proc]) {
    p.stdin.end();
    p.kill("SIGTERM");
  }
  const passed = results.filter(Boolean).length;
  console.log(`screenshots: ${shots}`);
  console.log(`${passed} passed, ${results.length - passed} failed`);
  process.exitCode = results.length - passed === 0 && results.length === expected ? 0 : 1;
}
