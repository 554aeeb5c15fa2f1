// check-slide-dom.js HTML... - the checks of tests/test_slides_render.sh that need the page
// as a browser lays it out: each deck's HTML (marp-cli's) is opened in headless Chromium at
// 1280 x 720, the size a slide is drawn at, and one line is printed per failing slide:
//   an image that is missing or fails to load (an <img> the browser could not decode);
//   text smaller than 18 px (any element with text of its own, as the browser sizes it).
// Prints "ok N" (N slides) and exits 0 when every slide passes.  Text inside the pictures
// (SVG files shown as images) is not looked at here.  Needs puppeteer-core
// (slides/package.json, a dependency of marp-cli) and CHROME_PATH.
'use strict';
const path = require('path');
const puppeteer = require(path.join(__dirname, '..', 'slides', 'node_modules', 'puppeteer-core'));

const MIN_TEXT_PX = 18;

async function checkDeck(browser, file) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 720 });
  await page.goto('file://' + path.resolve(file), { waitUntil: 'load' });
  const found = await page.evaluate((minPx) => {
    const problems = [];
    const slides = Array.from(document.querySelectorAll('section[id]'));
    slides.forEach((section, k) => {
      const where = `slide ${k + 1}`;
      for (const img of section.querySelectorAll('img')) {
        if (!img.complete || img.naturalWidth === 0)
          problems.push(`${where}: the image ${img.getAttribute('src')} did not load`);
      }
      let smallest = Infinity, sample = '';
      for (const el of section.querySelectorAll('*')) {
        const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
        if (!own) continue;
        const px = parseFloat(getComputedStyle(el).fontSize);
        if (px < smallest) { smallest = px; sample = el.textContent.trim().slice(0, 40); }
      }
      if (smallest < minPx)
        problems.push(`${where}: text of ${smallest.toFixed(1)} px ("${sample}"), under ${minPx}`);
    });
    return { problems, count: slides.length };
  }, MIN_TEXT_PX);
  await page.close();
  return found;
}

(async () => {
  const browser = await puppeteer.launch({ executablePath: process.env.CHROME_PATH,
                                           args: ['--no-sandbox', '--allow-file-access-from-files'] });
  let failed = 0, slides = 0;
  for (const file of process.argv.slice(2)) {
    const { problems, count } = await checkDeck(browser, file);
    slides += count;
    for (const p of problems) { console.log(`${path.basename(file)}: ${p}`); failed++; }
  }
  await browser.close();
  if (failed === 0) console.log(`ok ${slides}`);
  process.exit(failed === 0 ? 0 : 1);
})().catch((e) => { console.log(`check-slide-dom: ${e.message}`); process.exit(1); });
