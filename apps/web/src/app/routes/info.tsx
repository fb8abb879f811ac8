import Link from '@mui/material/Link';
import Skeleton from '@mui/material/Skeleton';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { useBrandName, usePublicConfig } from '../../lib/public-config';
import { isTelegramLaunch, loadTelegram } from '../../lib/telegram';

function Page({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Stack spacing={2} component="article">
      <Typography variant="h1">{title}</Typography>
      {children}
    </Stack>
  );
}

const P = ({ children }: { children: ReactNode }) => <Typography>{children}</Typography>;
const H = ({ children }: { children: ReactNode }) => <Typography variant="h2">{children}</Typography>;

export function HelpRoute() {
  return (
    <Page title="Помощь">
      <H>Как пополнить кошелёк</H>
      <P>
        Выберите игровой сервер, нажмите «Пополнить» и укажите сумму. Передайте адену или монеты эйнхасад в игре персонажу-кассиру,
        ник которого показан в заявке. Как только оператор подтвердит передачу, баланс пополнится.
      </P>
      <H>Как вывести</H>
      <P>
        Укажите ник своего персонажа и сумму. Сумма сразу резервируется на балансе; оператор передаст её в игре и закроет заявку. Пока
        заявка не обработана, её можно отменить — деньги вернутся на баланс.
      </P>
      <H>Подарочные коды</H>
      <P>
        Код — это сертификат на сумму адены на одном сервере. Его цена — номинал плюс комиссия сервиса. Активировать код может кто угодно
        на том же сервере, и сделать это можно только один раз.
      </P>
      <H>Сокращения сумм</H>
      <P>Суммы можно вводить как в игре: 1кк = 1 000 000, 1,5кк (или 1.5кк) = 1 500 000, 1ккк = 1 000 000 000.</P>
    </Page>
  );
}

/** The support contacts the operator set (SUPPORT_TELEGRAM, SUPPORT_EMAIL); none are made up. */
export function ContactsRoute() {
  const { data, isPending, isError } = usePublicConfig();
  const none = data && !data.support_telegram && !data.support_email;
  return (
    <Page title="Контакты">
      {isPending && <Skeleton variant="rounded" height={64} />}
      {data?.support_telegram && (
        <P>
          Telegram:{' '}
          <Link
            href={`https://t.me/${data.support_telegram}`}
            target="_blank"
            rel="noopener"
            data-testid="support-telegram"
            onClick={(e) => {
              // Inside the mini app the chat opens in Telegram itself, not as a web page.
              if (!isTelegramLaunch()) return;
              e.preventDefault();
              const url = e.currentTarget.href;
              void loadTelegram().then((tg) => tg?.openTelegramLink(url) || window.open(url, '_blank'));
            }}
          >
            @{data.support_telegram}
          </Link>
        </P>
      )}
      {data?.support_email && (
        <P>
          Почта:{' '}
          <Link href={`mailto:${data.support_email}`} data-testid="support-email">
            {data.support_email}
          </Link>
        </P>
      )}
      {(none || isError) && <P>Контакты поддержки пока не указаны. Напишите оператору в игре — кассиру вашего сервера.</P>}
      <P>В обращении укажите сервер, ник персонажа и номер заявки или сам код — так мы ответим быстрее.</P>
    </Page>
  );
}

export function AboutRoute() {
  const brand = useBrandName();
  return (
    <Page title="О нас">
      <P>
        «{brand}» работает с 2018 года. Мы храним адену и монеты эйнхасад игроков Lineage 2 на официальных русских серверах и
        помогаем безопасно передавать их: между своими персонажами, друзьям и покупателям.
      </P>
      <P>
        Каждое движение средств записывается в журнал по правилам двойной записи, поэтому баланс всегда сходится до последней адены.
      </P>
    </Page>
  );
}
