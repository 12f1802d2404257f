/**
 * The production CSP, enforced by Chromium on the built page: injected inline scripts and inline
 * event handlers do not run, and each attempt is reported as a `securitypolicyviolation`.
 */
import { expect, test } from '@playwright/test';
import { serveRenderer } from './rendererServer.ts';

test('the production CSP blocks injected inline scripts', async ({ page }) => {
  const server = await serveRenderer();
  try {
    await page.goto(server.url);
    const outcome = await page.evaluate(async () => {
      const violations: string[] = [];
      document.addEventListener('securitypolicyviolation', (e) => violations.push(`${e.violatedDirective} ${e.blockedURI}`));
      const w = window as unknown as { __pwned?: number };
      const script = document.createElement('script');
      script.textContent = 'window.__pwned = 1';
      document.head.appendChild(script);
      const holder = document.createElement('div');
      holder.innerHTML = '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" onload="window.__pwned = 2">';
      document.body.appendChild(holder);
      const remote = document.createElement('script');
      remote.src = 'https://evil.example/x.js';
      document.head.appendChild(remote);
      await new Promise((ok) => setTimeout(ok, 300));
      return { pwned: w.__pwned ?? null, violations };
    });
    expect(outcome.pwned).toBeNull();
    expect(outcome.violations.some((v) => v.startsWith('script-src') && v.endsWith('inline'))).toBe(true);
    expect(outcome.violations.some((v) => v.includes('evil.example'))).toBe(true);
  } finally {
    await server.close();
  }
});
