// check-slide-pngs.js PNG... - the pixel checks of tests/test_slides_render.sh, one line per
// failing slide: a slide is "blank" when almost nothing differs from its background, and
// "overflows" when anything is drawn in the margin strips along its top, bottom and
// right edges, where Marp's padding keeps content that fits (content that does not fit is cut
// off at the page edge, so it shows up there; the top strip too, where a vertically
// centred slide spills).  Prints "ok N" and exits 0 when every
// image passes.  Needs pngjs (slides/package.json).
'use strict';
const fs = require('fs');
const path = require('path');
const { PNG } = require(path.join(__dirname, '..', 'slides', 'node_modules', 'pngjs'));

const STRIP_X = 0.028, STRIP_Y = 0.05; // strip widths, as shares of the slide (36 px of 1280 x 720)
const BLANK_SHARE = 0.002; // fewer non-background pixels than this share: blank
const TOLERANCE = 24;      // summed RGB difference still counted as background

function checkImage(file) {
  const png = PNG.sync.read(fs.readFileSync(file));
  const { width, height, data } = png;
  const at = (x, y) => (y * width + x) * 4;
  const bg = at(1, 1);
  const isBackground = (x, y) => {
    const p = at(x, y);
    return Math.abs(data[p] - data[bg]) + Math.abs(data[p + 1] - data[bg + 1]) +
           Math.abs(data[p + 2] - data[bg + 2]) <= TOLERANCE;
  };
  const stripX = Math.round(width * STRIP_X), stripY = Math.round(height * STRIP_Y);
  let drawn = 0, inTop = 0, inBottom = 0, inRight = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (isBackground(x, y)) continue;
      drawn++;
      if (y < stripY) inTop++;
      else if (y >= height - stripY) inBottom++;
      else if (x >= width - stripX) inRight++;
    }
  }
  const problems = [];
  if (drawn < BLANK_SHARE * width * height) problems.push(`blank (${drawn} pixels drawn)`);
  if (inTop > 0) problems.push(`overflows at the top (${inTop} pixels in the first ${stripY} rows)`);
  if (inBottom > 0) problems.push(`overflows at the bottom (${inBottom} pixels in the last ${stripY} rows)`);
  if (inRight > 0) problems.push(`overflows on the right (${inRight} pixels in the last ${stripX} columns)`);
  return problems;
}

let failed = 0;
for (const file of process.argv.slice(2)) {
  for (const problem of checkImage(file)) {
    console.log(`${path.basename(file)}: ${problem}`);
    failed++;
  }
}
if (failed === 0) console.log(`ok ${process.argv.length - 2}`);
process.exit(failed === 0 ? 0 : 1);
