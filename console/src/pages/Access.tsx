import { useState } from "react";
import { Page } from "../components/ui";
import { useMe } from "../me";
import { AuditCard } from "./Audit";
import { ServiceAccountsCard } from "./ServiceAccounts";
import { TokensCard } from "./Tokens";

// AccessPage gathers who may reach Keygate: the signed-in user's personal
// gateway tokens and, for administrators, the service accounts and the
// audit log.
export function AccessPage() {
  const me = useMe();
  const admin = me?.role === "admin";
  const [changes, setChanges] = useState(0);
  return (
    <Page title="Access">
      <TokensCard admin={admin} local={me?.mode === "local"} onChange={() => setChanges((n) => n + 1)} />
      {admin && <ServiceAccountsCard onChange={() => setChanges((n) => n + 1)} />}
      {me && <AuditCard key={changes} admin={admin} />}
    </Page>
  );
}
