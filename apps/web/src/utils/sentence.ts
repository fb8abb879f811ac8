/** A server's message as a sentence of its own after ours: with its closing stop («…попробуйте снова.»). */
export const sentence = (text: string) => (/[.!?…]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);
