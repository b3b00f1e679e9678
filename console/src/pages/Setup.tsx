import { setup } from "../api";
import { Badge, Card, Copyable, ErrorBox, Page, Spinner, useLoad } from "../components/ui";

// withOrigin names this console's origin where the settings say
// {{ORIGIN}}: the compatible API shares the console's listener.
function withOrigin(text: string): string {
  return text.split("{{ORIGIN}}").join(window.location.origin);
}

export function SetupPage() {
  const { data, error, loading } = useLoad(() => setup.getCursorSetup({}), []);
  return (
    <Page title="Connect Cursor">
      <ErrorBox error={error} />
      {loading && <Spinner label="Loading the setup…" />}
      {data && (
        <Card>
          <ol className="list-decimal space-y-5 pl-5">
            <li className="space-y-2">
              <p className="text-sm">Point Cursor at this proxy address.</p>
              <Copyable label="Proxy address" value={data.proxyUrl || "(not configured)"} />
            </li>
            {data.personalToken && (
              <li className="space-y-2">
                <p className="text-sm">Your personal token identifies you to Keygate; keep it private.</p>
                <Copyable label="Personal token" value={data.personalToken} secret />
              </li>
            )}
            {data.caCertificateUrl && (
              <li className="space-y-2 text-sm">
                <p>Download the Keygate CA certificate and trust it on the machine that runs Cursor.</p>
                <a className="inline-block rounded-md bg-indigo-600 px-3 py-1.5 font-medium text-white" href={data.caCertificateUrl} download>
                  Download CA certificate
                </a>
              </li>
            )}
            {data.setupCommand && (
              <li className="space-y-2">
                <p className="text-sm">Or run this one command on that machine; it does the steps above.</p>
                <Copyable label="Setup command" value={data.setupCommand} />
              </li>
            )}
          </ol>
        </Card>
      )}
      {data && data.codingAgents.length > 0 && (
        <Card title="Other coding agents">
          <p className="mb-3 text-sm text-slate-600">
            Claude Code, the Codex CLI and scripts can use Keygate's models through its Anthropic- and OpenAI-compatible API,
            with your gateway token as their API key (any value on a laptop).
          </p>
          <div className="space-y-4" data-testid="coding-agents">
            {data.codingAgents.map((a) => (
              <div key={a.name} className="space-y-2">
                <Copyable label={a.name} value={withOrigin(a.command)} />
                <pre className="overflow-x-auto rounded bg-slate-100 px-2 py-1.5 text-xs">{withOrigin(a.settings)}</pre>
              </div>
            ))}
          </div>
        </Card>
      )}
      {data && data.agentTools.length > 0 && (
        <Card title="Tools Keygate runs for the agent">
          <ul className="space-y-2 text-sm" data-testid="agent-tools">
            {data.agentTools.map((t) => (
              <li key={t.name} className="flex items-baseline gap-2">
                <span className="w-24 font-mono">{t.name}</span>
                <span className="shrink-0 whitespace-nowrap"><Badge tone={t.offered ? "green" : "amber"}>{t.offered ? "offered" : "not offered"}</Badge></span>
                <span className="text-slate-600">{t.detail}</span>
              </li>
            ))}
          </ul>
        </Card>
      )}
    </Page>
  );
}
