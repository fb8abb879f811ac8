import { RESEND_INTERVAL_MS, waitText } from '@adena/contract/lite';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useRef, useState } from 'react';
import { useCountdown } from '../../../hooks/use-countdown';
import { ApiError } from '../../../lib/api-client';

/** A resend's outcome: sent, or refused (a 429's `Retry-After` restarts the countdown from the server's wait). */
export type ResendOutcome = { sent: true } | { sent: false; error: unknown };

/**
 * The wait on the button as the server's messages say it: seconds for the minute between codes, minutes and hours
 * for a longer refusal (the sign-up SMS budget's could read «через 3540 с»). Seconds up to a minute and a half, so that
 * the countdown does not jump from «2 мин» to «60 с».
 */
const waitLeft = (seconds: number) => waitText(seconds, { secondsUpTo: 90, space: '\u00a0' });

/**
 * The 6-digit code entry shared by sign-up and reset, with a resend countdown and a way back to the
 * details: a flow that died (5 wrong codes, expired) is started again from there, not from a resend.
 */
export function CodeStep(props: {
  sentTo: string;
  /** When the code was sent (Date.now()); the resend countdown runs from it. Default: now. */
  sentAt?: number;
  error?: string;
  busy: boolean;
  onSubmit(code: string): void;
  /** Omit when the flow has no resend call. */
  onResend?: () => Promise<ResendOutcome>;
  /** Back to the filled-in details, to correct them or start a new flow. */
  onRestart(): void;
}) {
  const [code, setCode] = useState('');
  const [resendAt, setResendAt] = useState(() => (props.sentAt ?? Date.now()) + RESEND_INTERVAL_MS);
  const left = useCountdown(resendAt);
  // A resend on its way: one request per tap, the button off from the click until the answer (a double tap sent
  // two, and the second, carrying the token the first replaced, said «Код устарел» above a code that works).
  const [sending, setSending] = useState(false);
  const sendingNow = useRef(false);
  return (
    <Stack
      component="form"
      spacing={2}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit(code);
      }}
    >
      <Typography>
        Мы отправили код из 6 цифр на <b style={{ overflowWrap: 'anywhere' }}>{props.sentTo}</b>. Он действует 10 минут.
      </Typography>
      <TextField
        label="Код подтверждения"
        value={code}
        onChange={(e) => setCode(e.target.value.replace(/\D/g, '').slice(0, 6))}
        error={Boolean(props.error)}
        helperText={props.error}
        autoComplete="one-time-code"
        slotProps={{ htmlInput: { inputMode: 'numeric', maxLength: 6 } }}
        autoFocus
      />
      <Button type="submit" variant="contained" size="large" disabled={props.busy || code.length !== 6}>
        Подтвердить
      </Button>
      {props.onResend && (
        <Button
          disabled={left > 0 || props.busy || sending}
          onClick={async () => {
            // The ref: a second tap before React has re-rendered the button as disabled.
            if (sendingNow.current || !props.onResend) return;
            sendingNow.current = true;
            setSending(true);
            try {
              const outcome = await props.onResend();
              if (outcome.sent) setResendAt(Date.now() + RESEND_INTERVAL_MS);
              else if (outcome.error instanceof ApiError && outcome.error.retryAfter) setResendAt(Date.now() + outcome.error.retryAfter * 1000);
            } finally {
              sendingNow.current = false;
              setSending(false);
            }
          }}
        >
          {left > 0 ? `Отправить код ещё раз через ${waitLeft(left)}` : 'Отправить код ещё раз'}
        </Button>
      )}
      <Button color="inherit" disabled={props.busy} onClick={props.onRestart}>
        Изменить данные и начать заново
      </Button>
    </Stack>
  );
}
