import { setup } from "../api";
import { Badge, Card, Copyable, ErrorBox, Page, Spinner, useLoad } from "../components/ui";

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
