/** plural(5, ['код', 'кода', 'кодов']) → «кодов»: the contract's one helper, shared with the server's texts. */
export { amountText, currencyWord, plural } from '@adena/contract/lite';
