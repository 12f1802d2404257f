/**
 * Saving a chart of the Overview (electron/main/export/chartImage.ts): the page's PNG or SVG is
 * written where the person chose, replacing a file there; anything that is not a PNG or an SVG
 * document is refused with words to act on, and the file already there is left as it was.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeChartImage } from '../../electron/main/export/chartImage.ts';
import { chartFileName } from '../../electron/main/export/run.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const folder = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'letterdesk-chart-'));
  dirs.push(d);
  return d;
};
// The smallest valid PNG: a 1×1 transparent pixel.
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('writeChartImage', () => {
  it('writes the PNG’s bytes and the SVG’s text, replacing a file there', () => {
    const dir = folder();
    const png = join(dir, 'chart.png');
    writeFileSync(png, 'old');
    writeChartImage(png, 'png', PNG_BASE64);
    expect(readFileSync(png).equals(Buffer.from(PNG_BASE64, 'base64'))).toBe(true);
    const svg = join(dir, 'chart.svg');
    const text = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><title>Orders by status — “Mailed”</title></svg>';
    writeChartImage(svg, 'svg', text);
    expect(readFileSync(svg, 'utf8')).toBe(text);
    expect(readdirSync(dir).sort()).toEqual(['chart.png', 'chart.svg']);
  });

  it('refuses what is not a PNG or an SVG, and the file there stays', () => {
    const dir = folder();
    const target = join(dir, 'chart.png');
    writeFileSync(target, 'kept');
    expect(() => writeChartImage(target, 'png', Buffer.from('<html>not a png</html>').toString('base64'))).toThrow(/could not be drawn as a PNG image\. Try Save as SVG/);
    expect(() => writeChartImage(join(dir, 'x.svg'), 'svg', '<html><svg></svg></html>')).toThrow(/could not be saved as an SVG image/);
    expect(readFileSync(target, 'utf8')).toBe('kept');
    expect(readdirSync(dir)).toEqual(['chart.png']);
  });

  it('names the file after the profile, the chart and the local day, with nothing that steers the path', () => {
    expect(chartFileName('Acme Mail Co.', 'orders-by-status', 'png', new Date(2026, 11, 3))).toBe('letterdesk-acme-mail-co-overview-orders-by-status-2026-12-03.png');
    expect(chartFileName('../../etc', '../passwd', 'svg', new Date(2026, 0, 9))).toBe('letterdesk-etc-overview-passwd-2026-01-09.svg');
  });
});
