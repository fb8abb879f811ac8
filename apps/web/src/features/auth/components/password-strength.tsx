import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { useEffect, useState } from 'react';

type Score = 0 | 1 | 2 | 3 | 4;
type Check = (password: string, userInputs: string[]) => Score;

let checker: Promise<Check> | null = null;

/**
 * zxcvbn and its dictionaries (~400 KB) are downloaded the first time a password field is used,
 * never with the first page. The server checks again (it refuses common passwords outright).
 */
export function loadStrengthChecker(): Promise<Check> {
  checker ??= Promise.all([import('@zxcvbn-ts/core'), import('@zxcvbn-ts/language-common')])
    .then(([core, common]) => {
      const factory = new core.ZxcvbnFactory({ dictionary: { ...common.dictionary }, graphs: common.adjacencyGraphs });
      return (password: string, userInputs: string[]) => factory.check(password.slice(0, 128), userInputs).score;
    })
    .catch((err: unknown) => {
      checker = null; // a failed download is tried again on the next keystroke
      throw err;
    });
  return checker;
}

const LEVELS: Record<Score, { label: string; color: 'error' | 'warning' | 'success' }> = {
  0: { label: 'очень слабый', color: 'error' },
  1: { label: 'слабый', color: 'error' },
  2: { label: 'средний', color: 'warning' },
  3: { label: 'хороший', color: 'success' },
  4: { label: 'надёжный', color: 'success' },
};

/** A bar of four and a Russian word for how hard the password is to guess, updated as the player types. */
export function PasswordStrength({ password, userInputs }: { password: string; userInputs: string[] }) {
  const [score, setScore] = useState<Score | null>(null);
  const inputsKey = userInputs.join('\n');
  useEffect(() => {
    if (!password) {
      setScore(null);
      return;
    }
    let cancelled = false;
    loadStrengthChecker()
      .then((check) => {
        if (!cancelled) setScore(check(password, inputsKey.split('\n').filter(Boolean)));
      })
      .catch(() => {
        // Offline: no meter; the server's check still applies.
      });
    return () => {
      cancelled = true;
    };
  }, [password, inputsKey]);
  if (!password || score === null) return null;
  const level = LEVELS[score];
  return (
    <Box data-testid="password-strength" data-score={score} aria-live="polite" sx={{ mt: -1 }}>
      <Box sx={{ display: 'flex', gap: 0.5 }} aria-hidden="true">
        {[1, 2, 3, 4].map((i) => (
          <Box key={i} sx={{ flex: 1, height: 4, borderRadius: 2, bgcolor: i <= Math.max(score, 1) ? `${level.color}.main` : 'action.disabledBackground' }} />
        ))}
      </Box>
      <Typography variant="caption" sx={{ color: `${level.color}.main` }}>
        Пароль: {level.label}
      </Typography>
    </Box>
  );
}
