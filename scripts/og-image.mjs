// Renders the link preview image (og:image, Twitter card) apps/web/public/og-image.png, 1200×630,
// from the HTML below in Debian's Chromium. Run again after changing the brand's look:
//   node scripts/og-image.mjs
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const out = resolve(dirname(fileURLToPath(import.meta.url)), '../apps/web/public/og-image.png');
const html = `<!doctype html><html lang="ru"><head><meta charset="utf-8"><style>
  html, body { margin: 0; width: 1200px; height: 630px; }
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: #fff;
    background: radial-gradient(circle at 85% 20%, #3a2c0c 0, #0f1216 55%); display: flex; flex-direction: column;
    justify-content: center; padding: 0 96px; box-sizing: border-box; }
  .coin { width: 120px; height: 120px; border-radius: 50%; background: radial-gradient(circle at 35% 35%, #ffe08a, #e0b252 55%, #8a5a00);
    box-shadow: 0 0 0 10px rgba(224, 178, 82, 0.18); display: flex; align-items: center; justify-content: center;
    font-size: 64px; font-weight: 800; color: #5a3a00; margin-bottom: 48px; }
  h1 { font-size: 92px; line-height: 1.05; margin: 0 0 28px; font-weight: 800; letter-spacing: -1px; }
  p { font-size: 40px; line-height: 1.3; margin: 0; color: rgba(255, 255, 255, 0.78); max-width: 960px; }
  .bar { position: absolute; left: 0; right: 0; bottom: 0; height: 14px; background: linear-gradient(90deg, #8a5a00, #e0b252, #8a5a00); }
</style></head><body>
  <div class="coin">А</div>
  <h1>Адена Кошелёк</h1>
  <p>Адена и монеты эйнхасад Lineage 2: пополнение и вывод через кассира, подарочные коды</p>
  <div class="bar"></div>
</body></html>`;

const browser = await chromium.launch({ executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 630 } });
  await page.setContent(html);
  await page.screenshot({ path: out, type: 'png' });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
}
