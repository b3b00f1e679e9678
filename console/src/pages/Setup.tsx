import { useState } from "react";
import { setup } from "../api";
import { Button, Card, ErrorBox, Page, Spinner, useLoad } from "../components/ui";

function Copyable({ label, value, secret }: { label: string; value: string; secret?: boolean }) {
  const [shown, setShown] = useState(!secret);
  const [copied, setCopied] = useState(false);
  return (
    <div className="space-y-1">
      <div className="text-sm font-medium text-slate-700">{label}</div>
      <div className="flex items-center gap-2">
        <code className="flex-1 overflow-x-auto rounded bg-slate-100 px-2 py-1.5 text-sm">{shown ? value : "•".repeat(24)}</code>
        {secret && <Button onClick={() => setShown(!shown)}>{shown ? "Hide" : "Show"}</Button>}
        <Button onClick={() => navigator.clipboard?.writeText(value).then(() => { setCopied(true); setTimeout(() => setCopied(false), 1500); })}>
          {copied ? "Copied" : "Copy"}
        </Button>
      </div>
    </div>
  );
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
    </Page>
  );
}
