import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";

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
