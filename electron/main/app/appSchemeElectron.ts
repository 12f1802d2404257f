/**
 * The app scheme in Electron: registered as privileged before `ready`, answered after it by
 * {@link appSchemeResponse} (all decisions live there and are tested without Electron).
 */
import type { Protocol } from 'electron';
import { APP_SCHEME, APP_SCHEME_PRIVILEGES, appSchemeResponse, type AppSchemeSources } from './appScheme.ts';

/**
 * Registers `letterdesk:` as a standard, secure scheme (appScheme.ts `APP_SCHEME_PRIVILEGES`).
 * Electron allows this once, before the app's `ready` event.
 */
export function registerAppSchemePrivileges(protocol: Pick<Protocol, 'registerSchemesAsPrivileged'>): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { ...APP_SCHEME_PRIVILEGES } }]);
}

/**
 * Answers the scheme in the default session (after `ready`).
 * @param sources the built renderer folder and the active profile's preview reader
 */
export function handleAppScheme(protocol: Pick<Protocol, 'handle'>, sources: AppSchemeSources): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const answer = await appSchemeResponse(request.url, sources, request.method);
    return new Response(answer.body === null ? null : new Uint8Array(answer.body), { status: answer.status, headers: answer.headers });
  });
}
