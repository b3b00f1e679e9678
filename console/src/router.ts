// Client-side routing: the console's pages are paths of one document, and
// filters live in the query string.
import { useEffect, useState } from "react";

// navigate changes the path without a reload; the server answers every
// console path with index.html, so deep links and reloads work too.
export function navigate(path: string) {
  window.history.pushState(null, "", path);
  window.dispatchEvent(new PopStateEvent("popstate"));
}

// useQueryParam keeps one filter in the page's query string, so a filtered
// page can be linked to and survives a reload. Setting it replaces the
// history entry (typing makes no entry per key); back/forward and links that
// change the query set it again.
export function useQueryParam(name: string): [string, (value: string) => void] {
  const read = () => new URLSearchParams(window.location.search).get(name) ?? "";
  const [value, setValue] = useState(read);
  useEffect(() => {
    const on = () => setValue(new URLSearchParams(window.location.search).get(name) ?? "");
    window.addEventListener("popstate", on);
    return () => window.removeEventListener("popstate", on);
  }, [name]);
  const set = (v: string) => {
    const q = new URLSearchParams(window.location.search);
    if (v) q.set(name, v); else q.delete(name);
    const query = q.toString();
    window.history.replaceState(null, "", window.location.pathname + (query ? `?${query}` : ""));
    setValue(v);
  };
  return [value, set];
}
