import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PREVIEW_KEY_PATTERN, previewKey, previewPath } from '../../shared/previewKey.ts';

const nodeKey = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);

describe('preview keys', () => {
  it('are the first 128 bits of the SHA-256 of the address, at every block boundary', () => {
    const inputs = ['', 'a', 'https://templates.example.com/t/6001/thumb.png', 'é✉️𝄞 ünïcödé', ...[55, 56, 57, 63, 64, 65, 119, 120, 128, 1000].map((n) => 'x'.repeat(n))];
    for (const input of inputs) expect(previewKey(input), JSON.stringify(input)).toBe(nodeKey(input));
  });
  it('are 32 hex digits, and the page path is relative', () => {
    const url = 'http://127.0.0.1:4100/templates/6001/thumb.png';
    expect(previewKey(url)).toMatch(PREVIEW_KEY_PATTERN);
    expect(previewPath(url)).toBe(`preview/${nodeKey(url)}`);
    expect(previewKey(url)).not.toBe(previewKey(`${url}?v=2`));
  });
});
