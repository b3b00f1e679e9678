import { useCallback, useEffect, useState, type ReactNode } from "react";
import { describe } from "../api";
import { navigate } from "../router";

export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <section className="space-y-4">
      <header className="flex items-center justify-between">
        <h1 className="text-2xl font-semibold">{title}</h1>
        <div className="flex gap-2">{actions}</div>
      </header>
      {children}
    </section>
  );
}

export function Card({ title, children, className = "" }: { title?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <div className={`rounded-lg border border-slate-200 bg-white p-4 shadow-sm ${className}`}>
      {title && <h2 className="mb-3 font-medium text-slate-700">{title}</h2>}
      {children}
    </div>
  );
}

type ButtonProps = { children: ReactNode; onClick?: () => void; kind?: "primary" | "plain" | "danger"; disabled?: boolean; type?: "button" | "submit"; title?: string };

export function Button({ children, onClick, kind = "plain", disabled, type = "button", title }: ButtonProps) {
  const style = {
    primary: "bg-indigo-600 text-white hover:bg-indigo-500",
    plain: "border border-slate-300 bg-white hover:bg-slate-100",
    danger: "border border-red-300 bg-white text-red-700 hover:bg-red-50",
  }[kind];
  return (
    <button type={type} title={title} onClick={onClick} disabled={disabled}
      className={`rounded-md px-3 py-1.5 text-sm font-medium disabled:opacity-50 ${style}`}>
      {children}
    </button>
  );
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
      {describe(error)}
    </div>
  );
}

// Note is a one-line remark about the whole page, such as why it is read-only.
export function Note({ children }: { children: ReactNode }) {
  return <p data-testid="role-note" className="rounded-md border border-slate-200 bg-slate-50 px-3 py-2 text-sm text-slate-600">{children}</p>;
}

export function Spinner({ label }: { label: string }) {
  return (
    <div className="flex items-center gap-2 text-sm text-slate-500" role="status">
      <span className="h-4 w-4 animate-spin rounded-full border-2 border-slate-300 border-t-indigo-600" />
      {label}
    </div>
  );
}

export function Field({ label, children, hint }: { label: string; children: ReactNode; hint?: string }) {
  return (
    <label className="block text-sm">
      <span className="mb-1 block font-medium text-slate-700">{label}</span>
      {children}
      {hint && <span className="mt-1 block text-xs text-slate-500">{hint}</span>}
    </label>
  );
}

export const inputClass = "w-full rounded-md border border-slate-300 px-2 py-1.5 text-sm focus:border-indigo-500 focus:outline-none disabled:bg-slate-50 disabled:text-slate-600";

// useLoad runs load on mount and whenever deps change, and offers reload.
// Data stays while a reload runs; an answer that arrives after deps changed
// again (a slower, older request) is dropped, so the page shows what its
// latest filters ask for. loading is derived: nothing has answered for the
// current deps and reload yet.
// Exported beside the components because Providers.tsx and Tokens.tsx import
// it from here; editing this file reloads the page rather than hot-refreshing it.
// eslint-disable-next-line react-refresh/only-export-components -- see above
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [tick, setTick] = useState(0);
  const [done, setDone] = useState<{ data?: T; error?: unknown; deps?: unknown[]; tick: number }>({ tick: -1 });
  useEffect(() => {
    let current = true;
    load().then(
      (data) => { if (current) setDone({ data, deps, tick }); },
      (error: unknown) => { if (current) setDone((d) => ({ data: d.data, error, deps, tick })); },
    );
    return () => { current = false; };
    // The deps are the caller's, as with useEffect; exhaustive-deps checks
    // them at every useLoad call (additionalHooks in eslint.config.js).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const loading = done.tick !== tick || !sameDeps(done.deps, deps);
  return { data: done.data, error: done.error, loading, reload };
}

function sameDeps(a: unknown[] | undefined, b: unknown[]) {
  return a !== undefined && a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
}

// Link is an in-console link: a plain href for new tabs, navigate for clicks.
export function Link({ to, children, className = "" }: { to: string; children: ReactNode; className?: string }) {
  return (
    <a href={to} className={className} onClick={(e) => { e.preventDefault(); e.stopPropagation(); navigate(to); }}>
      {children}
    </a>
  );
}

export function Badge({ children, tone = "slate" }: { children: ReactNode; tone?: "slate" | "green" | "red" | "amber" | "indigo" }) {
  const tones = {
    slate: "bg-slate-100 text-slate-700", green: "bg-green-100 text-green-800", red: "bg-red-100 text-red-800",
    amber: "bg-amber-100 text-amber-800", indigo: "bg-indigo-100 text-indigo-800",
  };
  return <span className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium ${tones[tone]}`}>{children}</span>;
}

// Copyable shows a value with a Copy button; a secret starts hidden.
export function Copyable({ label, value, secret, testId }: { label: string; value: string; secret?: boolean; testId?: string }) {
  const [shown, setShown] = useState(!secret);
  const [copied, setCopied] = useState<"" | "Copied" | "Select and copy it">("");
  const flash = (s: typeof copied) => { setCopied(s); setTimeout(() => setCopied(""), 2000); };
  // The clipboard API exists only in secure contexts (https or loopback).
  const copy = () => navigator.clipboard ? navigator.clipboard.writeText(value).then(() => flash("Copied"), () => flash("Select and copy it")) : flash("Select and copy it");
  return (
    <div className="space-y-1">
      <div className="text-sm font-medium text-slate-700">{label}</div>
      <div className="flex items-center gap-2">
        <code data-testid={testId} className="flex-1 overflow-x-auto rounded bg-slate-100 px-2 py-1.5 text-sm">{shown ? value : "•".repeat(24)}</code>
        {secret && <Button onClick={() => setShown(!shown)}>{shown ? "Hide" : "Show"}</Button>}
        <Button onClick={() => { setShown(true); void copy(); }}>{copied || "Copy"}</Button>
      </div>
    </div>
  );
}
