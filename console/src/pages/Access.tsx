import { useState } from "react";
import type { Me } from "../account";
import { Page } from "../components/ui";
import { AuditCard } from "./Audit";
import { TokensCard } from "./Tokens";

// AccessPage gathers who may reach Keygate: the signed-in user's personal
// gateway tokens and, for administrators, the audit log.
export function AccessPage({ me }: { me?: Me }) {
  const admin = me?.role === "admin";
  const [changes, setChanges] = useState(0);
  return (
    <Page title="Access">
      <TokensCard admin={admin} local={me?.mode === "local"} onChange={() => setChanges((n) => n + 1)} />
      {me && <AuditCard admin={admin} changes={changes} />}
    </Page>
  );
}
