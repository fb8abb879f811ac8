import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { Link as RouterLink } from 'wouter';
import { SELLER_IDEMPOTENCY_DAYS } from '@adena/contract/lite';
import { CopyButton } from '../../../components/copy-button';
import { scrollsSideways } from '../../../components/scrolls-sideways';

const origin = () => (typeof window === 'undefined' ? 'https://adena.example' : window.location.origin);

const curlExample = (o: string) => `curl -X POST ${o}/api/v1/codes \\
  -H "Authorization: Bearer aw_ВАШ_КЛЮЧ" \\
  -H "Idempotency-Key: order-12345" \\
  -H "Content-Type: application/json" \\
  -d '{"gamesserver_id": 1, "nominal": 10000000, "count": 2, "external_id": "FP-12345"}'`;

const jsExample = (o: string) => `// Node 18+ или браузер: выпустить 2 кода по 10кк для заказа FP-12345
const res = await fetch('${o}/api/v1/codes', {
  method: 'POST',
  headers: {
    Authorization: 'Bearer ' + process.env.ADENA_KEY, // aw_…
    'Idempotency-Key': 'order-12345', // повтор с тем же ключом не выпустит коды дважды
    'Content-Type': 'application/json',
  },
  body: JSON.stringify({ gamesserver_id: 1, nominal: 10_000_000, count: 2, external_id: 'FP-12345' }),
});
if (!res.ok) throw new Error((await res.json()).message); // 409 — не хватает баланса, 429 — слишком часто
const { codes, summa } = await res.json();
console.log(codes.map((c) => c.sert), 'списано', summa);`;

const verifyExample = `// npm install standardwebhooks
import { Webhook } from 'standardwebhooks';

const wh = new Webhook(process.env.ADENA_WEBHOOK_SECRET); // whsec_…

app.post('/adena-hook', express.text({ type: '*/*' }), (req, res) => {
  let event;
  try {
    // сверяет webhook-signature: v1,base64(HMAC-SHA256(секрет, id.timestamp.тело))
    event = wh.verify(req.body, req.headers);
  } catch {
    return res.status(400).end(); // подпись не сошлась — не от нас
  }
  if (event.type === 'code.activated') markDelivered(event.data.code.external_id);
  res.status(204).end(); // любой 2xx; иначе повторим позже
});`;

function Code({ title, code }: { title: string; code: string }) {
  return (
    <Paper variant="outlined" sx={{ position: 'relative' }}>
      <Stack direction="row" sx={{ alignItems: 'center', justifyContent: 'space-between', px: 1.5, pt: 0.5 }}>
        <Typography variant="caption" color="textSecondary">
          {title}
        </Typography>
        <CopyButton text={code} label={`Скопировать: ${title}`} />
      </Stack>
      <Box component="pre" sx={[scrollsSideways, { m: 0, px: 1.5, pb: 1.5, fontSize: 13, lineHeight: 1.5, fontFamily: 'monospace' }]}>
        <code>{code}</code>
      </Box>
    </Paper>
  );
}

function Step({ n, title, children }: { n: number; title: string; children: ReactNode }) {
  return (
    <Stack spacing={1}>
      <Typography variant="h2" sx={{ fontSize: 20 }}>
        {n}. {title}
      </Typography>
      {children}
    </Stack>
  );
}

/** «Для продавцов»: the flow, copy-paste examples and the signature check. */
export function SellerGuide() {
  const o = origin();
  return (
    <Stack spacing={3} component="article" data-view="seller-guide">
      <Stack spacing={1}>
        <Typography variant="h1">Для продавцов</Typography>
        <Typography color="textSecondary">
          Продаёте адену на FunPay, G2G или PlayerAuctions? Ваша программа выпускает код на каждый заказ и отдаёт его покупателю, а мы сообщаем, когда код
          активирован.
        </Typography>
        <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
          <Button variant="contained" component={RouterLink} href="/profile">
            Создать ключ в профиле
          </Button>
          <Button variant="outlined" href="/api/docs/" target="_blank" rel="noopener">
            Справочник API
          </Button>
        </Stack>
      </Stack>
      <Step n={1} title="Получите ключ">
        <Typography>
          В <Link component={RouterLink} href="/profile">профиле</Link>, в разделе «Для продавцов», создайте API-ключ. Он начинается с <code>aw_</code> и
          показывается один раз. Ключ работает только для адресов <code>/api/v1/…</code>; отозванный перестаёт работать сразу.
        </Typography>
      </Step>
      <Step n={2} title="Выпускайте коды по заказам">
        <Typography>
          Один вызов выпускает от 1 до 100 кодов: цена каждого — номинал плюс комиссия сервера (для VIP — сниженная), сумма списывается с баланса одной
          операцией. Заголовок <code>Idempotency-Key</code> обязателен: используйте номер заказа, и повтор при обрыве связи вернёт те же коды, а не новые
          (ключ помнится {SELLER_IDEMPOTENCY_DAYS} дней). Повтор возвращает ответ первого вызова, каким он был; нынешний статус кода — в{' '}
          <code>GET /api/v1/codes/{'{id}'}</code>. Ключ принадлежит одному вызову: для отмены берите другой, например <code>cancel-12345</code>, — с
          ключом выпуска отмена получит 409.
        </Typography>
        <Code title="curl" code={curlExample(o)} />
        <Code title="JavaScript" code={jsExample(o)} />
        <Typography variant="body2" color="textSecondary">
          Ещё: <code>GET /api/v1/balance?gamesserver_id=1</code>, <code>GET /api/v1/codes?status=active&amp;older_than=ID</code> — список от новых
          к старым: чтобы пройти его целиком, передавайте в <code>older_than</code> id последнего полученного кода (коды, активированные между
          страницами, иначе сдвинут список),{' '}
          <code>GET /api/v1/codes/{'{id}'}</code>, <code>DELETE /api/v1/codes/{'{id}'}</code> — отмена с возвратом цены. Не больше 120 вызовов в минуту на
          ключ.
        </Typography>
      </Step>
      <Step n={3} title="Узнавайте об активации">
        <Typography>
          Укажите адрес вебхука и события: <code>code.activated</code>, <code>code.cancelled</code>, <code>request.completed</code>,{' '}
          <code>request.rejected</code>. Тело — <code>{'{ type, timestamp, data }'}</code>, заголовки <code>webhook-id</code>,{' '}
          <code>webhook-timestamp</code>, <code>webhook-signature</code>. Проверяйте подпись секретом <code>whsec_…</code>:
        </Typography>
        <Code title="Проверка подписи (Node.js, Express)" code={verifyExample} />
        <Typography variant="body2" color="textSecondary">
          Не ответили 2xx за 10 секунд — повторим через 5 с, затем через 10 с, 20 с… в течение трёх суток. Событие может прийти дважды: у повторов тот же
          webhook-id. Адреса во внутренней сети не принимаются, перенаправления не выполняются.
        </Typography>
      </Step>
    </Stack>
  );
}
