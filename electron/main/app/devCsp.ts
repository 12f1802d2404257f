/**
 * A Vite plugin for the renderer's development server only: it gives the page the development
 * policy (security.ts `DEVELOPMENT_META_CONTENT_SECURITY_POLICY`, inline styles allowed for Vite's
 * injected stylesheets) in place of the production one in `renderer/index.html`. Builds are untouched.
 */
import type { Plugin } from 'vite';
import { DEVELOPMENT_META_CONTENT_SECURITY_POLICY, META_CONTENT_SECURITY_POLICY } from './security.ts';

/**
 * The plugin (`apply: 'serve'`).
 * @throws Error from the transform when index.html does not hold the production policy verbatim
 */
export function developmentCspPlugin(): Plugin {
  return {
    name: 'letterdesk-development-csp',
    apply: 'serve',
    transformIndexHtml(html) {
      const production = `content="${META_CONTENT_SECURITY_POLICY}"`;
      if (!html.includes(production)) throw new Error('renderer/index.html does not hold the Content Security Policy of electron/main/app/security.ts.');
      return html.replace(production, `content="${DEVELOPMENT_META_CONTENT_SECURITY_POLICY}"`);
    },
  };
}
