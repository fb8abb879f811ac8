import type { Gamesserver } from '@adena/contract/lite';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import { useState } from 'react';
import { LightTextField } from '../../../components/light-text-field';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { useUnsavedInput } from '../../../lib/telegram-back';
import { useSaveNick } from '../api/save-nick';

/**
 * The wallet's nick on this server: asked when missing, changed on request. A change (`onCancel` given) takes the
 * focus, and «Отмена» or Escape puts the nick back unchanged: opened by a stray tap, it had only «Сохранить».
 */
export function NickForm({ server, nick, onSaved, onCancel }: { server: Gamesserver; nick: string | null; onSaved(): void; onCancel?(): void }) {
  const [value, setValue] = useState(nick ?? '');
  useUnsavedInput(value.trim() !== (nick ?? '').trim());
  const save = useSaveNick();
  const f = useFormErrors();
  return (
    // Wraps on a narrow card: the field keeps 160 px at least, then the buttons go below it together, each as wide
    // as its label (at 360 px «Отмена» ran past the card's edge and the field shrank to «икПерсонажа»).
    <Stack
      component="form"
      direction="row"
      useFlexGap
      sx={{ alignItems: 'flex-start', flexWrap: 'wrap', gap: 1 }}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && onCancel) onCancel();
      }}
      onSubmit={(e) => {
        e.preventDefault();
        f.clear();
        save.mutate(
          { gameServerId: server.id, nick: value.trim() },
          // A refusal on another field (the server switched off: errors.gamesserver_id) is said under the nick too.
          { onSuccess: onSaved, onError: (err) => f.fromError(err, ['nick']) },
        );
      }}
    >
      <LightTextField
        size="small"
        label="Ник персонажа"
        value={value}
        onChange={setValue}
        autoComplete="nickname"
        autoFocus={Boolean(onCancel)}
        error={Boolean(f.fieldError('nick') || f.formError)}
        helperText={f.fieldError('nick') ?? f.formError ?? 'С него вы передаёте и на него получаете'}
        sx={{ flex: '1 1 160px', minWidth: 0 }}
      />
      <Stack direction="row" useFlexGap sx={{ gap: 1, flexShrink: 0, mt: '1px' }}>
        <Button type="submit" variant="outlined" disabled={save.isPending} sx={{ flexShrink: 0, whiteSpace: 'nowrap' }}>
          Сохранить
        </Button>
        {onCancel && (
          <Button color="inherit" onClick={onCancel} sx={{ flexShrink: 0, whiteSpace: 'nowrap' }}>
            Отмена
          </Button>
        )}
      </Stack>
    </Stack>
  );
}
