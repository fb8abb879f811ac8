import { create } from 'zustand';
import { ApiError, tokenStore } from './api-client';

/**
 * The step-up prompt (PRODUCT.md section 7, README "Second factors"): with TOTP on, calls that turn
 * balance into codes, show codes or mint an API key answer 403 `two_factor_required`; the call is
 * then asked again with the code the player types into one shared dialog (StepUpDialog).
 */
/**
 * `about` names what the code confirms when the screen may change under the prompt (an operator's action
 * on one player while the admin area shows another); `tag` lets that screen cancel it when it goes away.
 */
export interface StepUpFor {
  about?: string;
  tag?: string;
}

interface StepUpState {
  /** `retried`: the refusal answered a code sent (wrong or spent), said as an error rather than as the first ask. */
  prompt: ({ message: string; resolve: (code: string | null) => void; retried?: boolean } & StepUpFor) | null;
  answer(code: string | null): void;
}

export const useStepUp = create<StepUpState>((set, get) => ({
  prompt: null,
  answer(code) {
    get().prompt?.resolve(code);
    set({ prompt: null });
  },
}));

/** Opens the prompt; the typed code, or null when the player cancels. */
export function askStepUpCode(message: string, what: StepUpFor = {}, retried = false): Promise<string | null> {
  useStepUp.getState().prompt?.resolve(null);
  return new Promise((resolve) => useStepUp.setState({ prompt: { message, resolve, retried, ...what } }));
}

/** Screens gone since their action began: a retry of it (a wrong code) does not ask again over another screen. */
const gone = new Set<string>();

/** Cancels the open prompt if the screen tagged `tag` asked it (that screen is going away), and any it would ask next. */
export function cancelStepUp(tag: string) {
  gone.add(tag);
  if (useStepUp.getState().prompt?.tag === tag) useStepUp.getState().answer(null);
}

export const needsStepUp = (err: unknown): err is ApiError => err instanceof ApiError && err.body.two_factor_required === true;

/**
 * Runs a call; when the server asks for the second factor, asks the player and runs it again with
 * the code (again on a wrong code). Cancelling rethrows the server's refusal.
 */
export async function withStepUp<T>(run: (twoFactorCode?: string) => Promise<T>, what?: StepUpFor): Promise<T> {
  if (what?.tag) gone.delete(what.tag);
  // Whose call this is: after a sign-out or another account's sign-in (here or in another tab) it is neither
  // asked about nor sent again, since the call reads the token when it goes and would act as the next account.
  const token = tokenStore.get();
  const sameAccount = () => tokenStore.get() === token;
  let code: string | undefined;
  for (;;) {
    try {
      return await run(code);
    } catch (err) {
      if (!needsStepUp(err) || (what?.tag !== undefined && gone.has(what.tag)) || !sameAccount()) throw err;
      const typed = await askStepUpCode(err.message, what, code !== undefined);
      if (typed === null || !sameAccount()) throw err;
      code = typed.trim();
    }
  }
}
