import { useEffect, useState } from "react";
import { SetupPage } from "./pages/Setup";
import { ModelsPage } from "./pages/Models";
import { CallsPage } from "./pages/Calls";
import { CallDetailPage } from "./pages/CallDetail";
import { DashboardPage } from "./pages/Dashboard";
import { ConversationsPage } from "./pages/Conversations";
import { SettingsPage } from "./pages/Settings";

// navigate changes the path without a reload; the server answers every
// console path with index.html, so deep links and reloads work too.
export function navigate(path: string) {
  window.history.pushState(null, "", path);
  window.dispatchEvent(new PopStateEvent("popstate"));
}

export function Link({ to, children, className = "" }: { to: string; children: React.ReactNode; className?: string }) {
  return (
    <a href={to} className={className} onClick={(e) => { e.preventDefault(); e.stopPropagation(); navigate(to); }}>
      {children}
    </a>
  );
}

const nav = [
  { path: "/", label: "Dashboard" },
  { path: "/setup", label: "Connect Cursor" },
  { path: "/models", label: "Providers & Models" },
  { path: "/calls", label: "Calls" },
  { path: "/conversations", label: "Conversations" },
  { path: "/settings", label: "Settings" },
];

function route(path: string) {
  if (path.startsWith("/calls/")) return <CallDetailPage callId={decodeURIComponent(path.slice("/calls/".length))} />;
  if (path.startsWith("/conversations/")) return <ConversationsPage conversationId={decodeURIComponent(path.slice("/conversations/".length))} />;
  switch (path) {
    case "/setup": return <SetupPage />;
    case "/models": return <ModelsPage />;
    case "/calls": return <CallsPage />;
    case "/conversations": return <ConversationsPage />;
    case "/settings": return <SettingsPage />;
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
  return (
    <div className="flex min-h-screen">
      <nav className="w-56 shrink-0 border-r border-slate-200 bg-white p-4">
        <div className="mb-6 text-lg font-bold text-indigo-700">Keygate</div>
        <ul className="space-y-1">
          {nav.map((n) => (
            <li key={n.path}>
              <Link to={n.path}
                className={`block rounded-md px-3 py-2 text-sm ${section === n.path ? "bg-indigo-50 font-medium text-indigo-700" : "text-slate-600 hover:bg-slate-100"}`}>
                {n.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main className="min-w-0 flex-1 p-6">{route(path)}</main>
    </div>
  );
}
