import { useEffect, useRef, useState } from 'react';
import { useSearchParams } from 'wouter';

type UrlValues = Record<string, string | number | undefined>;

/**
 * A list's search, filters and page kept in the address as well as in state (`?q=…&page=3`, replaced in
 * place rather than a new history entry): Back from a record opened from the list returns to the same
 * search, page and filters, instead of an empty search at page 1. State leads and the address follows
 * it; `fromUrl` reads an address typed or edited by hand, so it takes only values the server accepts.
 */
export function useFiltersInUrl<T>(fromUrl: (params: URLSearchParams) => T, toUrl: (state: T) => UrlValues) {
  const [params, setParams] = useSearchParams();
  const [state, setState] = useState(() => fromUrl(params));
  const wanted = new URLSearchParams();
  for (const [key, value] of Object.entries(toUrl(state))) if (value !== undefined && value !== '') wanted.set(key, String(value));
  const next = wanted.toString();
  const current = params.toString();
  // The address this list last wrote or read: another one came from outside (the menu's link to the bare
  // list, Back within the page) and the list follows it.
  const known = useRef(current);
  const latestFromUrl = useRef(fromUrl);
  latestFromUrl.current = fromUrl;
  useEffect(() => {
    if (current !== known.current && current !== next) {
      known.current = current;
      setState(latestFromUrl.current(new URLSearchParams(current)));
      return;
    }
    if (next !== current) {
      known.current = next;
      setParams(new URLSearchParams(next), { replace: true });
    }
  }, [next, current, setParams]);
  return [state, setState] as const;
}

/** A page number from the address: 1 unless it is one the server takes. */
export function pageFromUrl(text: string | null): number {
  const n = Number(text);
  return Number.isInteger(n) && n >= 1 && n <= 100_000 ? n : 1;
}

/** One of `allowed` from the address, or undefined. */
export function oneOf<V extends string>(text: string | null, allowed: readonly V[]): V | undefined {
  return allowed.find((v) => v === text);
}
