import { useRef } from 'react';
import { refusedForSure } from '../lib/api-client';

const newKey = () => crypto.randomUUID();

/**
 * The Idempotency-Key of a form that moves value, one per request. After a try whose answer was lost
 * (no connection, 5xx: it may have gone through) the key stays, so sending the same request again is
 * answered from the first try instead of moving value twice; another request (other fields) takes a
 * new key, since the old key with another body is refused (409) however often it is tried. A refusal
 * of a key no earlier try may have used moved nothing, so the next try gets a new key. Once an answer
 * was lost the key stays until a try succeeds (answered from the first one if that went through) or
 * another request is made: a retry refused before it reached the call (429, 401, a TOTP prompt) proves
 * nothing about the first try. Refs, not state: a form's success handler may renew within the same
 * run and must see this try's outcome.
 */
export function useRequestKey() {
  // uncertain: the last try failed and one with this key may have gone through; lost: some try with this key lost its answer.
  const state = useRef({ key: newKey(), sentFor: null as string | null, uncertain: false, lost: false });
  const s = state.current;
  const renew = () => {
    s.key = newKey();
    s.sentFor = null;
    s.uncertain = false;
    s.lost = false;
  };
  return {
    /** The key to send this request with; `request` names what is sent (server, amount…). */
    keyFor(request: string) {
      if (s.sentFor !== null && s.sentFor !== request) {
        s.key = newKey();
        s.lost = false;
      }
      s.sentFor = request;
      s.uncertain = false;
      return s.key;
    },
    /** After a failed try: true while a try with this key may have gone through (the form keeps its fields and key for the next opening). */
    failed(err: unknown) {
      if (refusedForSure(err) && !s.lost) renew();
      else s.uncertain = s.lost = true;
      return s.uncertain;
    },
    /** Whether the last try failed while a try with this key may have gone through. */
    get uncertain() {
      return s.uncertain;
    },
    /** The next try is a new request (after a success, or a form closed with nothing in doubt). */
    renew,
  };
}
