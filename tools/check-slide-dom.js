// check-slide-dom.js HTML... - the checks of tests/test_slides_render.sh that need the page
// as a browser lays it out: each deck's HTML (marp-cli's) is opened in headless Chromium at
// 1280 x 720, the size a slide is drawn at, and one line is printed per failing slide:
//   an image that is missing or fails to load (an <img> the browser could not decode);
//   text smaller than 18 px (any element with text of its own, as the browser sizes it);
//   a line of text in the margin strips along the top, bottom and right edges, where the
//   theme's padding keeps text that fits (those of check-slide-pngs.js): a slide that
//   overflows;
//   text inside a picture (an SVG file shown as an image) smaller than 18 px as the slide
//   shows it: each SVG is opened on its own, the smallest of its texts measured (its
//   font size times the transform the SVG puts on it), then scaled as the slide scales
//   the image;
//   text drawn in another font than the deck's (slides/course.css: Liberation Sans, code in
//   Liberation Mono; the pictures Liberation Sans): the fonts Chromium really drew the
//   glyphs with, as its DevTools protocol reports them (CSS.getPlatformFontsForNode), not
//   the names the CSS asks for - a missing font shows as the fallback that replaced it
//   (DejaVu on a bare Debian, whose wider letters overflow the slides and whose code font
//   drops the underscores at this size).
// Prints "ok N" (N slides) and exits 0 when every slide passes.  Needs puppeteer-core
// (slides/package.json, a dependency of marp-cli) and CHROME_PATH.
'use strict';
const path = require('path');
const puppeteer = require(path.join(__dirname, '..', 'slides', 'node_modules', 'puppeteer-core'));

const MIN_TEXT_PX = 18;
// the margin strips along the top, bottom and right edges, as shares of the slide (36 px of
// 1280 x 720), as in check-slide-pngs.js
const STRIP = { x: 0.028, y: 0.05 };
// The fonts of the decks and of their pictures, and the share of the glyphs each must draw:
// a few symbols (arrows, x, <=) may come from another font, the letters may not.
const TEXT_FONT = 'Liberation Sans', CODE_FONT = 'Liberation Mono', MIN_FONT_SHARE = 0.95;

// glyphsByFont(page, selector): how many glyphs of the matching elements' own text each font
// drew, as Chromium laid the page out: Map family -> glyphs.
async function glyphsByFont(page, selector) {
  const cdp = await page.target().createCDPSession();
  await cdp.send('DOM.enable');
  await cdp.send('CSS.enable');
  const { root } = await cdp.send('DOM.getDocument', { depth: -1, pierce: false });
  const { nodeIds } = await cdp.send('DOM.querySelectorAll', { nodeId: root.nodeId, selector });
  const glyphs = new Map();
  for (const nodeId of nodeIds) {
    const { fonts } = await cdp.send('CSS.getPlatformFontsForNode', { nodeId });
    for (const f of fonts) glyphs.set(f.familyName, (glyphs.get(f.familyName) || 0) + f.glyphCount);
  }
  await cdp.detach();
  return glyphs;
}

// fontProblem(WHAT, GLYPHS, FONT): a line when FONT drew less than MIN_FONT_SHARE of the glyphs
function fontProblem(what, glyphs, font) {
  let total = 0;
  for (const n of glyphs.values()) total += n;
  const own = glyphs.get(font) || 0;
  if (total === 0 || own >= MIN_FONT_SHARE * total) return null;
  const drawn = [...glyphs].sort((a, b) => b[1] - a[1]).map(([f, n]) => `${f} ${n}`).join(', ');
  return `${what} is drawn in other fonts than ${font} (glyphs: ${drawn}): the font is missing ` +
         `or not found - run tools/setup-slides.sh (Debian's fonts-liberation)`;
}

async function checkDeck(browser, file) {
  const page = await browser.newPage();
  // the slides as laid out by their HTML and CSS alone, each in its place: the viewer's
  // script (marp-cli's bespoke template: one slide shown at a time, scaled to the window)
  // moved the same slide's text by a hundred pixels from one load to the next
  await page.setJavaScriptEnabled(false);
  await page.setViewport({ width: 1280, height: 720 });
  await page.goto('file://' + path.resolve(file), { waitUntil: 'load' });
  // measure the layout of the decks' own fonts, not of a fallback drawn while they load
  await page.evaluate(() => document.fonts.ready);
  let found = await measure(page);
  // A slide that fits was once found overflowing by a loaded CI machine, and not on the
  // rerun: a layout taken before Chromium had its system fonts is one explanation.  A
  // slide that does not fit overflows every time, so a slide's problems count only when a
  // second look, a moment later, finds them again.
  if (found.problems.length > 0) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    found = await measure(page);
  }
  for (const [what, selector, font] of [
      ['the text', 'section[id] :not(pre, code, pre *, code *, :has(code))', TEXT_FONT],
      ['the code', 'section[id] pre, section[id] code, section[id] code *', CODE_FONT]]) {
    const problem = fontProblem(what, await glyphsByFont(page, selector), font);
    if (problem) found.problems.push(problem);
  }
  await page.close();
  for (const pic of found.pictures) {
    const { px, sample, fontProblem } = await smallestTextIn(browser, pic.src, pic.name);
    if (px * pic.scale < MIN_TEXT_PX)
      found.problems.push(`${pic.where}: text of ${(px * pic.scale).toFixed(1)} px ("${sample}") ` +
                          `in ${pic.name}, under ${MIN_TEXT_PX}`);
    if (fontProblem) found.problems.push(`${pic.where}: ${fontProblem}`);
  }
  return found;
}

// measure(PAGE): the slides' problems as the page is laid out now (images, text size,
// overflow), and the SVG pictures to open on their own
async function measure(page) {
  return page.evaluate((minPx, strip) => {
    const problems = [], pictures = [];
    const slides = Array.from(document.querySelectorAll('section[id]'));
    slides.forEach((section, k) => {
      const where = `slide ${k + 1}`;
      for (const img of section.querySelectorAll('img')) {
        if (!img.complete || img.naturalWidth === 0)
          problems.push(`${where}: the image ${img.getAttribute('src')} did not load`);
        else if (/\.svg$/i.test(img.src)) {
          const shown = img.getBoundingClientRect();
          pictures.push({ where, src: img.src, name: img.getAttribute('src'),
                          scale: Math.min(shown.width / img.naturalWidth, shown.height / img.naturalHeight) });
        }
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
      // overflow: a line of text in the margin strips (those of check-slide-pngs.js): text
      // that fits stays inside the theme's 56 px padding.  (A picture's box may reach into
      // them with nothing drawn there - the charts' own white margins - so pictures are
      // left to the pixel check.)
      const page = section.getBoundingClientRect();
      const stripX = page.width * strip.x, stripY = page.height * strip.y;
      const edgeOf = (r) => r.width === 0 || r.height === 0 ? ''
          : r.top < page.top + stripY ? 'top' : r.bottom > page.bottom - stripY ? 'bottom'
          : r.right > page.right - stripX ? 'right' : '';
      const spills = new Map(); // edge -> the first text there
      const walker = document.createTreeWalker(section, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        if (!node.textContent.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const r of range.getClientRects()) {
          const edge = edgeOf(r);
          if (edge && !spills.has(edge)) spills.set(edge, `"${node.textContent.trim().slice(0, 40)}"`);
        }
      }
      for (const [edge, what] of spills)
        problems.push(`${where}: overflows at the ${edge} (${what} is drawn in its margin strip)`);
    });
    return { problems, pictures, count: slides.length };
  }, MIN_TEXT_PX, STRIP);
}

// smallestTextIn(SVG): the smallest text an SVG file draws, in its own pixels: each text
// element's font size times the scale of the transform it is drawn under (gnuplot turns
// its rotated labels with one); and whether its text is drawn in the pictures' font.
// Remembered per file: a picture is often on several slides.
const smallestSeen = new Map();
async function smallestTextIn(browser, src, name) {
  if (smallestSeen.has(src)) return smallestSeen.get(src);
  const page = await browser.newPage();
  await page.goto(src, { waitUntil: 'load' });
  const found = await page.evaluate(() => {
    let px = Infinity, sample = '';
    for (const el of document.querySelectorAll('text, tspan')) {
      const own = Array.from(el.childNodes).some((n) => n.nodeType === 3 && n.textContent.trim());
      const ctm = el.getScreenCTM();
      if (!own || !ctm) continue;
      const size = parseFloat(getComputedStyle(el).fontSize) * Math.hypot(ctm.a, ctm.b);
      if (size < px) { px = size; sample = el.textContent.trim().slice(0, 40); }
    }
    return { px, sample };
  });
  found.fontProblem = fontProblem(`the text of ${name}`, await glyphsByFont(page, 'text, tspan'),
                                  TEXT_FONT);
  await page.close();
  smallestSeen.set(src, found);
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
