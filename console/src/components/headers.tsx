import { useState } from "react";
import type { CustomHeaderHint } from "../gen/control/v1/model_pb";
import { Button, Field, inputClass } from "./ui";

// HeadersEditor edits the custom headers a provider sends. Their values
// are stored encrypted and never shown again, not even to administrators:
// a stored header shows its name and a masked hint, and an empty value
// keeps the stored one. Changing a value means entering it again.
export function HeadersEditor({ value, hints, onChange }: {
  value: Record<string, string>; hints: CustomHeaderHint[]; onChange: (v: Record<string, string>) => void;
}) {
  const [name, setName] = useState("");
  const hintOf = (n: string) => hints.find((h) => h.name.toLowerCase() === n.toLowerCase())?.hint;
  const names = Object.keys(value).sort();
  return (
    <Field label="Custom headers" hint="Values are stored encrypted and never shown again; leave a stored value empty to keep it.">
      <div className="space-y-1" data-testid="custom-headers">
        {names.map((n) => (
          <div key={n} className="flex items-center gap-2">
            <code className="w-48 truncate text-xs">{n}</code>
            <input aria-label={`Value of ${n}`} className={inputClass} type="password" autoComplete="off" value={value[n]}
              placeholder={hintOf(n) ? `stored: ${hintOf(n)} (leave empty to keep)` : "value"}
              onChange={(e) => onChange({ ...value, [n]: e.target.value })} />
            <Button onClick={() => { const next = { ...value }; delete next[n]; onChange(next); }}>Remove</Button>
          </div>
        ))}
        <div className="flex items-center gap-2">
          <input aria-label="New header name" className={inputClass} value={name} placeholder="header name, e.g. CF-Access-Client-Secret" onChange={(e) => setName(e.target.value)} />
          <Button disabled={!name.trim() || name.trim() in value} onClick={() => { onChange({ ...value, [name.trim()]: "" }); setName(""); }}>Add header</Button>
        </div>
      </div>
    </Field>
  );
}

// HeaderHints shows which headers a provider sends: names and masked hints.
export function HeaderHints({ hints }: { hints: CustomHeaderHint[] }) {
  if (hints.length === 0) return null;
  return (
    <span data-testid="header-hints">headers: {hints.map((h) => <code key={h.name} className="mx-1 rounded bg-slate-100 px-1">{h.name}{h.hint && ` ${h.hint}`}</code>)}</span>
  );
}
