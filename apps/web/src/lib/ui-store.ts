import { ALERT_TIMEOUT_MS, SNACKBAR_TIMEOUT_MS } from '@adena/contract/lite';
import { create } from 'zustand';

/**
 * The timeout of an alert that stays until it is closed: an operator's failed act. They often act and look back at
 * the game client; an alert gone after ALERT_TIMEOUT_MS would leave the card looking as if the act went through.
 */
export const UNTIL_CLOSED = 0;

export type SnackbarStatus = 'success' | 'error' | 'info' | 'warning';

/** Dialogs of SPEC.md section 3 that any feature may open. Only one is open at a time. */
export type DialogState =
  | { name: 'none' }
  | { name: 'not_signed_in' }
  | { name: 'no_server' }
  | { name: 'put'; currency: 1 | 2 }
  | { name: 'take'; currency: 1 | 2 }
  // amount and available, when the caller knows them, are shown to the player.
  | { name: 'low_capacity'; currency: 1 | 2; amount?: number; available?: number; gameServerId?: number }
  | { name: 'subscribe_telegram' }
  | { name: 'error_code'; incidentId: number }
  | { name: 'user_variant' }
  | { name: 'edit_user_variant'; userVariantId: number; nominal: number; count: number; initialTotalAden: number }
  | { name: 'delete_success'; summa: number }
  | { name: 'create_success'; summa: number; count: number; nominal: number }
  | { name: 'vip' }
  // Confirmations of the codes tab: revealing a code states its price; cancelling names the code.
  | { name: 'show_code'; gameServerId: number; nominal: number; price: number; userVariantId?: number; /** Why the price is not the one first shown. */ note?: string }
  | { name: 'cancel_code'; gameServerId: number; codeId: number; nominal: number; sert: string }
  | { name: 'alert'; text: string; errors: string[]; timeout: number; data?: { low_cap?: boolean; sert?: string; accept?: boolean } };

interface UiState {
  /**
   * The notice shown; `id` counts showSnackbar's calls and keys the Snackbar, so each notice is a new one with its
   * whole timeout (a second with the same timeout would otherwise only change the text and close with the first).
   */
  snackbar: { open: boolean; status: SnackbarStatus; text: string; timeout: number; id: number };
  dialog: DialogState;
  showSnackbar(text: string, status?: SnackbarStatus, timeout?: number): void;
  closeSnackbar(): void;
  /** Opening one dialog closes any other (SPEC.md section 4). */
  openDialog(dialog: Exclude<DialogState, { name: 'none' }>): void;
  /**
   * A dialog the app opens on its own (a realtime `error_code`): at once when none is open, else
   * when the player closes the one in hand, so a withdrawal being typed is not swept away.
   */
  offerDialog(dialog: Exclude<DialogState, { name: 'none' }>): void;
  /** The offered dialog waiting for the open one to close. */
  queued: Exclude<DialogState, { name: 'none' }> | null;
  closeDialog(): void;
  alert(text: string, errors?: string[], timeout?: number): void;
}

export const useUi = create<UiState>((set) => ({
  snackbar: { open: false, status: 'info', text: '', timeout: SNACKBAR_TIMEOUT_MS, id: 0 },
  dialog: { name: 'none' },
  showSnackbar: (text, status = 'success', timeout = SNACKBAR_TIMEOUT_MS) =>
    set((s) => ({ snackbar: { open: true, status, text, timeout, id: s.snackbar.id + 1 } })),
  closeSnackbar: () => set((s) => ({ snackbar: { ...s.snackbar, open: false } })),
  openDialog: (dialog) => set({ dialog }),
  offerDialog: (dialog) => set((s) => (s.dialog.name === 'none' ? { dialog } : { queued: dialog })),
  queued: null,
  closeDialog: () => set((s) => ({ dialog: s.queued ?? { name: 'none' }, queued: null })),
  alert: (text, errors = [], timeout = ALERT_TIMEOUT_MS) => set({ dialog: { name: 'alert', text, errors, timeout } }),
}));
