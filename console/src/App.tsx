import { useEffect, useState } from "react";
import { SetupPage } from "./pages/Setup";
import { ModelsPage } from "./pages/Models";
import { ProvidersPage } from "./pages/Providers";
import { AliasesPage } from "./pages/Aliases";
import { CallsPage } from "./pages/Calls";
import { CallDetailPage } from "./pages/CallDetail";
import { DashboardPage } from "./pages/Dashboard";
import { ConversationsPage } from "./pages/Conversations";
import { MemoriesPage } from "./pages/Memories";
import { BudgetsPage } from "./pages/Budgets";
import { SettingsPage } from "./pages/Settings";
import { AccessPage } from "./pages/Access";
import { CursorCloudPage } from "./pages/CursorCloud";
import { TeamsPage } from "./pages/Teams";
import { SpendPage } from "./pages/Spend";
import { me as loadMe, type Me } from "./account";
import { describe } from "./api";
import { Link, Spinner, useLoad } from "./components/ui";
import { MeContext } from "./me";

const nav = [
  { path: "/", label: "Dashboard" },
  { path: "/setup", label: "Connect Cursor" },
  { path: "/models", label: "Providers & Models" },
  { path: "/providers", label: "Providers & keys" },
  { path: "/aliases", label: "Aliases" },
  { path: "/calls", label: "Calls" },
  { path: "/conversations", label: "Conversations" },
  { path: "/cursor-cloud", label: "Cursor cloud" },
  { path: "/memories", label: "Memories" },
  { path: "/teams", label: "Teams" },
  { path: "/spend", label: "Spend" },
  { path: "/budgets", label: "Budgets" },
  { path: "/access", label: "Access" },
  { path: "/settings", label: "Settings" },
];

function route(path: string) {
  if (path.startsWith("/calls/")) return <CallDetailPage callId={decodeURIComponent(path.slice("/calls/".length))} />;
  if (path.startsWith("/conversations/")) return <ConversationsPage conversationId={decodeURIComponent(path.slice("/conversations/".length))} />;
  switch (path) {
    case "/setup": return <SetupPage />;
    case "/models": return <ModelsPage />;
    case "/providers": return <ProvidersPage />;
    case "/aliases": return <AliasesPage />;
    case "/calls": return <CallsPage />;
    case "/conversations": return <ConversationsPage />;
    case "/memories": return <MemoriesPage />;
    case "/teams": return <TeamsPage />;
    case "/spend": return <SpendPage />;
    case "/budgets": return <BudgetsPage />;
    case "/settings": return <SettingsPage />;
    case "/access": return <AccessPage />;
    case "/cursor-cloud": return <CursorCloudPage />;
    default: return <DashboardPage />;
  }
}

export function App() {
  const [path, setPath] = useState(window.location.pathname);
  useEffect(() => {
    const on = () => setPath(window.location.pathname);
    window.addEventListener("popstate", on);
    return () => window.removeEventListener("popstate", on);
  }, []);
  const section = "/" + (path.split("/")[1] ?? "");
  const who = useLoad(loadMe, []);
  return (
    <div className="flex min-h-screen">
      <nav className="flex w-56 shrink-0 flex-col border-r border-slate-200 bg-white p-4">
        <div className="mb-6 text-lg font-bold text-indigo-700">Keygate</div>
        <ul className="flex-1 space-y-1">
          {nav.map((n) => (
            <li key={n.path}>
              <Link to={n.path}
                className={`block rounded-md px-3 py-2 text-sm ${section === n.path ? "bg-indigo-50 font-medium text-indigo-700" : "text-slate-600 hover:bg-slate-100"}`}>
                {n.label}
              </Link>
            </li>
          ))}
        </ul>
        <User me={who.data} error={who.error} />
      </nav>
      {/* Pages wait for the role, so that an administrator's actions do not
          appear a moment after a read-only page (or a member's the reverse). */}
      <main className="min-w-0 flex-1 p-6">
        <MeContext value={who.data}>{who.loading && !who.data ? <Spinner label="Loading…" /> : route(path)}</MeContext>
      </main>
    </div>
  );
}

// User names the signed-in user and their role at the foot of the nav.
function User({ me, error }: { me?: Me; error: unknown }) {
  if (error) return <div role="alert" className="mt-6 text-xs text-red-700">{describe(error)}</div>;
  if (!me) return null;
  return (
    <div data-testid="whoami" className="mt-6 border-t border-slate-200 pt-3 text-sm">
      <div className="truncate font-medium text-slate-700" title={me.userId}>{me.name || me.userId}</div>
      <div className="text-xs text-slate-500">{me.role}{me.mode === "local" ? " · local install" : ""}</div>
      {me.mode === "oidc" && (
        <form method="post" action="/auth/logout"><button className="mt-1 text-xs text-indigo-700 hover:underline">Sign out</button></form>
      )}
    </div>
  );
}
