/** Where the sign-up and reset forms keep a code step under way (features/auth/components/code-flow.ts). */
export const CODE_FLOW_PREFIX = 'code_flow:';

/**
 * A sign-in or a sign-out in the tab ends every code step kept there: on a shared device the next visitor
 * of /register or /reset would find the last one's address, and a resend would mail it a code.
 */
export function forgetCodeFlows() {
  try {
    for (const key of Object.keys(sessionStorage)) if (key.startsWith(CODE_FLOW_PREFIX)) sessionStorage.removeItem(key);
  } catch {
    // Storage refused (private mode): nothing was kept.
  }
}
