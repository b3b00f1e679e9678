import { describe, expect, it } from "vitest";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { ms, percent, plural, time, tokens, usd } from "./format";

describe("format", () => {
  it("writes durations in ms below 10 s and in seconds above, a dash for none", () => {
    expect(ms(0)).toBe("–");
    expect(ms(undefined)).toBe("–");
    expect(ms(850n)).toBe("850 ms");
    expect(ms(9_999)).toBe("9999 ms");
    expect(ms(10_000)).toBe("10.0 s");
    expect(ms(12_345n)).toBe("12.3 s");
  });

  it("writes token counts plainly, then in thousands from 10k and millions from 1M", () => {
    expect(tokens(undefined)).toBe("0");
    expect(tokens(1234)).toBe((1234).toLocaleString());
    expect(tokens(9_999)).toBe((9_999).toLocaleString());
    expect(tokens(10_000)).toBe("10.0k");
    expect(tokens(12_345n)).toBe("12.3k");
    expect(tokens(1_000_000)).toBe("1.00M");
    expect(tokens(2_500_000n)).toBe("2.50M");
  });

  it("writes rates as percentages with one decimal", () => {
    expect(percent(0)).toBe("0.0%");
    expect(percent(0.8766)).toBe("87.7%");
  });

  it("writes costs in cents, with four decimals for fractions of a cent", () => {
    expect(usd(0)).toBe("$0.00");
    expect(usd(0.0042)).toBe("$0.0042");
    expect(usd(0.01)).toBe("$0.01");
    expect(usd(12.345)).toBe("$12.35");
  });

  it("pluralises nouns", () => {
    expect(plural(1, "message")).toBe("1 message");
    expect(plural(1n, "message")).toBe("1 message");
    expect(plural(0, "message")).toBe("0 messages");
    expect(plural(3n, "message")).toBe("3 messages");
  });

  it("writes timestamps in the browser's locale, a dash for none", () => {
    const d = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(time(timestampFromDate(d))).toBe(d.toLocaleString());
    expect(time(undefined)).toBe("–");
  });
});
