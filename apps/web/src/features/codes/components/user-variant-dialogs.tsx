import { type Code, createPricekod, type Pricekod } from '@adena/contract';
import type { Gamesserver } from '@adena/contract/lite';
import Add from '@mui/icons-material/Add';
import EditOutlined from '@mui/icons-material/EditOutlined';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { AppDialog } from '../../../components/app-dialog';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { ApiError } from '../../../lib/api-client';
import { useUi } from '../../../lib/ui-store';
import { formatAmount } from '../../../utils/format-amount';
import { agree } from '../../../utils/agree';
import { plural } from '../../../utils/plural';
import { useCreatePricekod } from '../api/create-pricekod';
import { aden, adenShort, codesCount, estimatePrice, refusedElsewhere } from './code-format';
import { useRequestKey } from '../../../hooks/use-request-key';
import { useOpening } from './use-opening';
import { paidForOpenCodes } from './edit-user-variant-dialog';
import { nominalRefusal, SHOWN, sendable, useVariantForm, VariantFields } from './variant-form';

/** The user's variants on this server, each with its open and total count; `codes`: the page's open codes of variants. */
export function UserVariantsList({ userVariants, codes }: { userVariants: Pricekod[]; codes: Code[] }) {
  const openDialog = useUi((s) => s.openDialog);
  return (
    <Stack spacing={1}>
      {userVariants.length > 0 && (
        <List disablePadding data-testid="user-variants">
          {userVariants.map((p) => (
            <ListItem key={p.id} divider sx={{ px: 0, gap: 1 }} data-testid="user-variant">
              <Stack sx={{ flexGrow: 1, minWidth: 0 }}>
                <Typography sx={{ fontWeight: 700 }}>
                  {adenShort(p.nominal)} × {codesCount(p.count)}
                </Typography>
                <Typography variant="body2" color="textSecondary">
                  Цена кода {aden(p.price)} · не активировано {formatAmount(p.open_count)} из {formatAmount(p.count)}
                </Typography>
              </Stack>
              <Tooltip title="Изменить или удалить">
                <IconButton
                  aria-label={`Изменить вариант ${adenShort(p.nominal)}`}
                  onClick={() =>
                    openDialog({
                      name: 'edit_user_variant',
                      userVariantId: p.id,
                      nominal: p.nominal,
                      count: p.open_count,
                      // SPEC.md section 3's initialTotalAden: what the codes the edit can still change cost.
                      initialTotalAden: paidForOpenCodes(p, codes),
                    })
                  }
                >
                  <EditOutlined />
                </IconButton>
              </Tooltip>
            </ListItem>
          ))}
        </List>
      )}
      <Button startIcon={<Add />} variant="outlined" sx={{ alignSelf: 'flex-start' }} onClick={() => openDialog({ name: 'user_variant' })}>
        Свой номинал
      </Button>
    </Stack>
  );
}

/** Create a user variant. Opening it closes every other dialog (SPEC.md section 4: openDialog replaces). */
export function UserVariantDialog({ server, feeBp }: { server: Gamesserver; feeBp: number }) {
  const open = useUi((s) => s.dialog.name === 'user_variant');
  const close = useUi((s) => s.closeDialog);
  const openDialog = useUi((s) => s.openDialog);
  const snackbar = useUi((s) => s.showSnackbar);
  const create = useCreatePricekod();
  const f = useFormErrors();
  // As the money form: while a batch is in doubt (still running, or its answer lost) the batch and its
  // key stay for the next opening, and the key also across a remount (a server or tab switch).
  const keys = useRequestKey('variant_create');
  const form = useVariantForm(null);
  const refuse = (nominal: number) => nominalRefusal(server, nominal);
  const startOver = () => {
    form.setNominal('');
    form.setCount('1');
  };
  const reset = () => {
    if (!keys.uncertain) startOver();
    f.clear();
    close();
  };
  const opening = useOpening();
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    f.clear();
    const body = f.validate(createPricekod.body, { gamesserver_id: server.id, nominal: form.parsedNominal ?? undefined, count: form.parsedCount ?? undefined });
    // The field already says why; the button is off then, and Enter does not submit past a disabled default button.
    if (!body || refuse(body.nominal)) return;
    // Whether this opening is still on screen: an answer that comes after it was closed, or after the player
    // switched server, opens nothing over what they do now and is said in a notice naming its server.
    const stillOpen = opening();
    // The price per code the dialog states: if the fee changed meanwhile the server refuses instead of charging another.
    const price = estimatePrice(body.nominal, feeBp);
    void keys
      .send(`${body.gamesserver_id}:${body.nominal}:${body.count}:${price}`, (idempotencyKey) => create.mutateAsync({ ...body, price, idempotencyKey }))
      .then(
        (r) => {
          startOver();
          if (stillOpen()) openDialog({ name: 'create_success', summa: r.summa, count: r.count, nominal: r.nominal });
          else
            snackbar(
              `${plural(r.count, ['Код создан', 'Коды созданы', 'Коды созданы'])} на сервере ${server.name}: ${codesCount(r.count)} по ${adenShort(r.nominal)}, ${plural(r.count, ['он', 'они', 'они'])} в списке «Мои коды»`,
            );
        },
        (err: unknown) => {
          if (!stillOpen()) return refusedElsewhere(snackbar, `Коды на сервере ${server.name} не созданы`, err);
          if (err instanceof ApiError && err.body.low_cap) return openDialog({ name: 'low_capacity', currency: 1 });
          f.fromError(err, SHOWN);
        },
      );
  };
  return (
    <AppDialog
      open={open}
      onClose={reset}
      // A nominal or count typed stays on a stray click beside the dialog (Escape and «Отмена» still close it).
      keepOnBackdrop={form.nominal.trim() !== '' || form.count.trim() !== '1'}
      title="Свой номинал"
      testId="user-variant-dialog"
      actions={
        <>
          <Button onClick={reset}>Отмена</Button>
          <Button type="submit" form="user-variant-form" variant="contained" disabled={create.isPending || !sendable(refuse, form.parsedNominal)}>
            Создать коды
          </Button>
        </>
      }
    >
      <Stack component="form" id="user-variant-form" spacing={2} sx={{ pt: 1 }} onSubmit={submit} noValidate>
        <Typography color="textSecondary">Выпустите сразу несколько кодов своего номинала — например, для продажи. Цена списывается при создании.</Typography>
        {f.formError && <Alert severity="error">{f.formError}</Alert>}
        <VariantFields form={form} f={f} server={server} feeBp={feeBp} refuse={refuse} />
      </Stack>
    </AppDialog>
  );
}


export function CreateSuccessDialog() {
  const dialog = useUi((s) => s.dialog);
  const close = useUi((s) => s.closeDialog);
  const open = dialog.name === 'create_success';
  const d = open ? dialog : null;
  return (
    <AppDialog
      open={open}
      onClose={close}
      title="Коды созданы"
      testId="create-success-dialog"
      actions={
        <Button variant="contained" onClick={close}>
          Готово
        </Button>
      }
    >
      {d && (
        <Stack spacing={1}>
          <Typography>
            {plural(d.count, ['Создан', 'Создано', 'Создано'])} <b>{codesCount(d.count)}</b> номиналом <b>{aden(d.nominal)}</b>.
          </Typography>
          <Typography>
            С баланса {agree(d.summa, 'charged')} <b data-testid="create-success-summa">{aden(d.summa)}</b>.
          </Typography>
          <Typography variant="body2" color="textSecondary">
            {d.count === 1 ? 'Код — в списке «Мои коды», там его можно скопировать.' : 'Все коды — в списке «Мои коды», там их можно скопировать.'}
          </Typography>
        </Stack>
      )}
    </AppDialog>
  );
}

export function DeleteSuccessDialog() {
  const dialog = useUi((s) => s.dialog);
  const close = useUi((s) => s.closeDialog);
  const open = dialog.name === 'delete_success';
  return (
    <AppDialog
      open={open}
      onClose={close}
      title="Вариант удалён"
      testId="delete-success-dialog"
      actions={
        <Button variant="contained" onClick={close}>
          Готово
        </Button>
      }
    >
      {open && (
        <Typography>
          Неактивированные коды отменены. На баланс {agree(dialog.summa, 'returned')} <b data-testid="delete-success-summa">{aden(dialog.summa)}</b>.
        </Typography>
      )}
    </AppDialog>
  );
}
