import { timestampDate, timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";

export function ms(v: bigint | number | undefined): string {
  const n = Number(v ?? 0);
  if (n === 0) return "–";
  return n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${n} ms`;
}

export function tokens(v: bigint | number | undefined): string {
  const n = Number(v ?? 0);
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(2)}M`;
  if (n >= 10_000) return `${(n / 1000).toFixed(1)}k`;
  return n.toLocaleString();
}

export function time(t: Timestamp | undefined): string {
  return t ? timestampDate(t).toLocaleString() : "–";
}

export function percent(v: number): string {
  return `${(v * 100).toFixed(1)}%`;
}

export function usd(v: number): string {
  return v < 0.01 && v > 0 ? `$${v.toFixed(4)}` : `$${v.toFixed(2)}`;
}

// plural writes "1 message", "3 messages".
export function plural(n: number | bigint, noun: string): string {
  return `${n} ${noun}${Number(n) === 1 ? "" : "s"}`;
}

// spendRange turns two date inputs (YYYY-MM-DD) into a spend report's
// [start, end) covering whole UTC days, the last one included.
export function spendRange(from: string, to: string) {
  const start = new Date(`${from}T00:00:00Z`);
  const end = new Date(new Date(`${to}T00:00:00Z`).getTime() + 86_400_000);
  return { startTime: timestampFromDate(start), endTime: timestampFromDate(end) };
}
