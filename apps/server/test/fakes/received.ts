export interface ReceivedMessage {
  to: string;
  subject: string;
  text: string;
  /** The 6-digit code in the text, if any. */
  code: string | null;
}

export const codeIn = (text: string) => /\b(\d{6})\b/.exec(text)?.[1] ?? null;
