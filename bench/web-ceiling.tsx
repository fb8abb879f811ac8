// The ceiling of bench/web.ts: the app's own index.html (the same static first screen and styles)
// with only React and React DOM rendering that same first screen. No page of ours that uses React
// can download less script or block the main thread for less.
import { createRoot } from 'react-dom/client';

createRoot(document.getElementById('root')!).render(
  <>
    <div className="boot-bar">Адена Кошелёк</div>
    <div className="boot-main">
      <h1>Кошелёк адены</h1>
      <p className="boot-muted">Пополняйте и выводите адену и монеты эйнхасад через кассира сервиса и превращайте баланс в подарочные коды.</p>
    </div>
  </>,
);
