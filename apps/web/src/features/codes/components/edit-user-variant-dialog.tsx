import { type Code, createPricekod, type Pricekod } from '@adena/contract';
import type { Gamesserver } from '@adena/contract/lite';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { AppDialog } from '../../../components/app-dialog';
import { useFormErrors } from '../../../hooks/use-form-errors';
import { ApiError } from '../../../lib/api-client';
import { type DialogState, useUi } from '../../../lib/ui-store';
import { formatAmount } from '../../../utils/format-amount';
import { agree } from '../../../utils/agree';
import { plural } from '../../../utils/plural';
import { useDeletePricekod } from '../api/delete-pricekod';
import { useUpdatePricekod } from '../api/update-pricekod';
import { aden, adenShort, codesCount, estimatePrice, refusedElsewhere } from './code-format';
import { useRequestKey } from '../../../hooks/use-request-key';
import { parseAmount } from '../../../utils/parse-amount';
import { useOpening } from './use-opening';
import { nominalRefusal, SHOWN, sendable, useVariantForm, VariantFields } from './variant-form';

/**
 * What a batch's open codes were paid: their own prices, as charged when they were issued, which an
 * edit or deletion refunds. The price of a code today (`price`, at today's fee) differs once the fee
 * changed (an operator's setting, VIP bought or ended). SPEC.md's price × count is the fallback when
 * the page does not list every open code of the batch (it lists the newest OPEN_CODES_LIMIT).
 */
export function paidForOpenCodes(p: Pricekod, codes: Code[]): number {
  const open = codes.filter((c) => c.pricekod_id === p.id && c.status === 'active');
  return open.length === p.open_count ? open.reduce((sum, c) => sum + c.price, 0) : p.price * p.open_count;
}

/** A batch as the page lists it now: its nominal, its open codes' count and, when every one of them is listed, what each was paid, oldest first. */
export interface ListedBatch {
  nominal: number;
  openCount: number;
  paid: number[] | null;
}

export function listedBatch(id: number, fallback: { nominal: number; count: number }, userVariants?: Pricekod[], codes?: Code[]): ListedBatch {
  const p = userVariants?.find((x) => x.id === id);
  const openCount = p?.open_count ?? fallback.count;
  const open = (codes ?? []).filter((c) => c.pricekod_id === id && c.status === 'active').sort((a, b) => a.id - b.id);
  return { nominal: p?.nominal ?? fallback.nominal, openCount, paid: codes && open.length === openCount ? open.map((c) => c.price) : null };
}

/**
 * What an edit to `count` codes of `nominal` moves, as the server's edit does (user-variants.service.ts):
 * the same nominal keeps the open codes it keeps at what they were paid, adds codes at today's price or
 * cancels the newest open ones and refunds what those were paid; a new nominal cancels every open code
 * (`paidTotal` back) and issues `count` at today's price. Positive: charged; negative: refunded; null:
 * nothing changes. Without every open code listed, a smaller count falls back to SPEC.md's new total −
 * initialTotalAden.
 */
export function editDiff(batch: ListedBatch, paidTotal: number, nominal: number, count: number, feeBp: number): number | null {
  const today = estimatePrice(nominal, feeBp);
  const paid = batch.paid ? batch.paid.reduce((sum, x) => sum + x, 0) : paidTotal;
  if (nominal !== batch.nominal) return today * count - paid;
  if (count === batch.openCount) return null;
  if (count > batch.openCount) return (count - batch.openCount) * today;
  if (batch.paid) return -batch.paid.slice(count).reduce((sum, x) => sum + x, 0);
  return today * count - paidTotal;
}


type EditState = Extract<DialogState, { name: 'edit_user_variant' }>;

/**
 * `batch` and `paidTotal`: the batch as the page lists it now, kept live by realtime events (a buyer activating
 * one of its codes lowers its open count while the dialog is open). The server reads an edit's count as the
 * open codes wanted, so a count taken from the opening would issue, and charge, a code for each one activated
 * meanwhile: the count field follows the live open count until the player changes it, and once changed, a
 * change of the open count is said.
 */
function EditForm({
  d,
  server,
  feeBp,
  batch,
  paidTotal,
  onEdited,
}: {
  d: EditState;
  server: Gamesserver;
  feeBp: number;
  batch: ListedBatch;
  paidTotal: number;
  /** Whether the player changed the nominal or the count: the dialog then stays on a click beside it. */
  onEdited(edited: boolean): void;
}) {
  const close = useUi((s) => s.closeDialog);
  const openDialog = useUi((s) => s.openDialog);
  const snackbar = useUi((s) => s.showSnackbar);
  const update = useUpdatePricekod();
  const del = useDeletePricekod();
  const f = useFormErrors();
  const form = useVariantForm({ nominal: d.nominal, count: d.count });
  // The open count the count field was last filled from; an untouched field follows the live one.
  const [filledFrom, setFilledFrom] = useState(d.count);
  if (batch.openCount !== filledFrom) {
    setFilledFrom(batch.openCount);
    if (form.count.trim() === String(filledFrom)) form.setCount(String(batch.openCount));
  }
  // The fields as VariantFields edits them, telling the dialog whether they now differ from what it opened with.
  const edited = (nominal: string, count: string) => onEdited(parseAmount(nominal) !== d.nominal || count.trim() !== String(filledFrom));
  const fields = {
    ...form,
    setNominal(v: string) {
      form.setNominal(v);
      edited(v, form.count);
    },
    setCount(v: string) {
      form.setCount(v);
      edited(form.nominal, v);
    },
  };
  // As the server (user-variants.service.ts, edit): an edit that issues codes (a new nominal, or more codes than are
  // open) buys under today's minimum; one keeping the nominal and issuing none only refunds, under a raised one too.
  const refuse = (nominal: number) =>
    nominal === batch.nominal && form.parsedCount !== null && form.parsedCount <= batch.openCount ? null : nominalRefusal(server, nominal);
  const leftMeanwhile = d.count - batch.openCount;
  const countHeld = leftMeanwhile !== 0 && form.count.trim() !== String(batch.openCount);
  // Kept outside this form, which unmounts when the dialog closes: an edit or a deletion in doubt keeps its key for the next opening.
  const keys = useRequestKey('variant_edit');
  const [confirmDelete, setConfirmDelete] = useState(false);
  const diff = form.parsedNominal !== null && sendable(refuse, form.parsedNominal) && form.parsedCount ? editDiff(batch, paidTotal, form.parsedNominal, form.parsedCount, feeBp) : null;
  // Whether this opening is still on screen: an answer that comes after it was closed (or opened again, or
  // the server switched) closes or opens nothing else, and is said in a notice naming its server.
  const opening = useOpening();

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    f.clear();
    const body = f.validate(createPricekod.body, { gamesserver_id: server.id, nominal: form.parsedNominal ?? undefined, count: form.parsedCount ?? undefined });
    // The field already says why; the button is off then, and Enter does not submit past a disabled default button.
    if (!body || refuse(body.nominal)) return;
    const price = estimatePrice(body.nominal, feeBp);
    const stillOpen = opening();
    void keys
      .send(`${d.userVariantId}:${body.nominal}:${body.count}:${price}`, (idempotencyKey) =>
        update.mutateAsync({ ...body, id: d.userVariantId, price, idempotencyKey }),
      )
      .then(
        (r) => {
          const what = `${codesCount(r.count)} по ${adenShort(r.nominal)}`;
          if (!stillOpen()) return snackbar(`Вариант на сервере ${server.name} изменён: ${what}`);
          close();
          snackbar(`Вариант изменён: ${what}`);
        },
        (err: unknown) => {
          if (!stillOpen()) return refusedElsewhere(snackbar, `Вариант на сервере ${server.name} не изменён`, err);
          if (err instanceof ApiError && err.body.low_cap) return openDialog({ name: 'low_capacity', currency: 1 });
          f.fromError(err, SHOWN);
        },
      );
  };
  const remove = () => {
    const stillOpen = opening();
    void keys
      .send(`delete:${d.userVariantId}`, (idempotencyKey) => del.mutateAsync({ id: d.userVariantId, gamesserver_id: server.id, idempotencyKey }))
      .then(
        (r) => {
          if (stillOpen()) openDialog({ name: 'delete_success', summa: r.summa });
          else snackbar(`Вариант на сервере ${server.name} удалён, на баланс ${agree(r.summa, 'returned')} ${aden(r.summa)}`);
        },
        (err: unknown) => {
          if (stillOpen()) f.fromError(err, SHOWN);
          else refusedElsewhere(snackbar, `Вариант на сервере ${server.name} не удалён`, err);
        },
      );
  };

  return (
    <>
      <Stack component="form" id="edit-variant-form" spacing={2} sx={{ pt: 1 }} onSubmit={submit} noValidate>
        <Typography color="textSecondary">
          Сейчас: {codesCount(batch.openCount)} по {adenShort(batch.nominal)}, {agree(paidTotal, 'paid')} {aden(paidTotal)}. Изменение касается только
          неактивированных кодов.
        </Typography>
        {countHeld && (
          <Alert severity="warning" data-testid="variant-changed-meanwhile">
            {leftMeanwhile > 0
              ? `Пока окно было открыто, ${plural(leftMeanwhile, ['активирован или отменён', 'активированы или отменены', 'активировано или отменено'])} ${codesCount(leftMeanwhile)} этого варианта: неактивированных теперь ${formatAmount(batch.openCount)}.`
              : `Пока окно было открыто, вариант изменился: неактивированных кодов теперь ${formatAmount(batch.openCount)}.`}{' '}
            Проверьте количество: столько неактивированных кодов будет в варианте после сохранения.
          </Alert>
        )}
        {f.formError && <Alert severity="error">{f.formError}</Alert>}
        <VariantFields form={fields} f={f} server={server} feeBp={feeBp} refuse={refuse} />
        {diff !== null && diff !== 0 && (
          <Alert severity={diff > 0 ? 'info' : 'success'} data-testid="variant-diff">
            {diff > 0 ? `Доплата ≈ ${aden(diff)}` : `Вернётся на баланс ≈ ${aden(-diff)}`}
          </Alert>
        )}
        {confirmDelete ? (
          // The answers under the question, not beside it: at 390 px beside it they squeezed it into five lines (walk 16).
          <Alert severity="warning">
            {batch.openCount === 0
              ? 'Удалить вариант? Неактивированных кодов в нём нет, на баланс ничего не вернётся.'
              : `Удалить вариант? ${codesCount(batch.openCount)} ${plural(batch.openCount, ['перестанет', 'перестанут', 'перестанут'])} действовать, ${plural(batch.openCount, ['его', 'их', 'их'])} цена вернётся на баланс.`}
            <Stack direction="row" spacing={1} sx={{ mt: 1 }}>
              <Button color="inherit" size="small" onClick={() => setConfirmDelete(false)}>
                Нет
              </Button>
              <Button color="error" size="small" disabled={del.isPending} onClick={remove}>
                Удалить
              </Button>
            </Stack>
          </Alert>
        ) : (
          <Button color="error" sx={{ alignSelf: 'flex-start' }} onClick={() => setConfirmDelete(true)}>
            Удалить вариант
          </Button>
        )}
      </Stack>
      <Stack direction="row" spacing={1} sx={{ justifyContent: 'flex-end', pt: 2 }}>
        <Button onClick={close}>Отмена</Button>
        <Button type="submit" form="edit-variant-form" variant="contained" disabled={update.isPending || !sendable(refuse, form.parsedNominal)}>
          Сохранить
        </Button>
      </Stack>
    </>
  );
}

/**
 * `userVariants` and `codes`: the page's batches and their listed open codes (price data's `pricekods`
 * and `svoy_variant_kods`), from which the money an edit moves is worked out as the server moves it.
 */
export function EditUserVariantDialog({ server, feeBp, userVariants, codes }: { server: Gamesserver; feeBp: number; userVariants?: Pricekod[]; codes?: Code[] }) {
  const dialog = useUi((s) => s.dialog);
  const close = useUi((s) => s.closeDialog);
  const open = dialog.name === 'edit_user_variant';
  // What the batch's open codes were paid, as the page lists them now; the opening's figure when the page lacks the batch.
  const listed = open ? userVariants?.find((p) => p.id === dialog.userVariantId) : undefined;
  const paidTotal = open ? (listed ? paidForOpenCodes(listed, codes ?? []) : dialog.initialTotalAden) : 0;
  // What the player edited in this opening (its dialog object) stays on a stray click beside it; Escape and «Отмена» still close it.
  const [edited, setEdited] = useState<{ opening: DialogState; edited: boolean } | null>(null);
  return (
    <AppDialog open={open} onClose={close} keepOnBackdrop={open && edited?.opening === dialog && edited.edited} title="Изменить вариант" testId="edit-user-variant-dialog">
      {open && (
        <EditForm
          key={dialog.userVariantId}
          d={dialog}
          server={server}
          feeBp={feeBp}
          batch={listedBatch(dialog.userVariantId, dialog, userVariants, codes)}
          paidTotal={paidTotal}
          onEdited={(e) => setEdited({ opening: dialog, edited: e })}
        />
      )}
    </AppDialog>
  );
}
