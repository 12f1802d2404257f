/**
 * Stand-ins for the Electron objects the app's glue (electron/main/app/) is handed, for machines
 * where the Electron binary cannot run. Each is typed against the installed `electron` package's
 * declarations (`Pick<Electron.Session, …>` and the handler types Electron declares), and each
 * callback is driven with the arguments Electron documents for it, so a glue function written
 * against a wrong shape fails the typecheck or these tests.
 *
 * The event emitters' `on` returns `this`, which `Pick` turns into the whole Electron class; that
 * one method is the only cast here. The listener types the fakes call are checked against
 * Electron's own overloads by {@link LISTENER_SHAPES}.
 */
import { PassThrough } from 'node:stream';
import type {
  App,
  BrowserWindow,
  ForkOptions,
  HandlerDetails,
  OnHeadersReceivedListenerDetails,
  PermissionCheckHandlerHandlerDetails,
  Protocol,
  Session,
  UtilityProcess,
  WebContents,
  WebContentsWillNavigateEventParams,
  WebContentsWillRedirectEventParams,
  WebPreferences,
  WebRequest,
  WindowOpenHandlerResponse,
} from 'electron';
import type { GuardedWebContents, HardenedSession } from '../../electron/main/app/security.ts';
import type { ForkedUtilityProcess, ForkUtilityProcess } from '../../electron/main/app/syncProcess.ts';

// The listeners as Electron declares them (electron.d.ts), argument for argument.
type WillNavigateListener = (details: Electron.Event<WebContentsWillNavigateEventParams>, url: string, isInPlace: boolean, isMainFrame: boolean, frameProcessId: number, frameRoutingId: number) => void;
type WillRedirectListener = (details: Electron.Event<WebContentsWillRedirectEventParams>, url: string, isInPlace: boolean, isMainFrame: boolean, frameProcessId: number, frameRoutingId: number) => void;
type WillAttachWebviewListener = (event: Electron.Event, webPreferences: WebPreferences, params: Record<string, string>) => void;
type WebContentsCreatedListener = (event: Electron.Event, webContents: WebContents) => void;
type SecondInstanceListener = (event: Electron.Event, argv: string[], workingDirectory: string, additionalData: unknown) => void;
type WillQuitListener = (event: Electron.Event) => void;
type AppCommandListener = (event: Electron.Event, command: string) => void;
type UtilityErrorListener = (type: 'FatalError', location: string, report: string) => void;
type UtilityExitListener = (code: number) => void;
type UtilityMessageListener = (message: unknown) => void;

/**
 * Never called: each entry compiles only while Electron's own `on` overload for that event takes a
 * listener of the shape the fakes call, so the fakes cannot drift from electron.d.ts.
 */
export const LISTENER_SHAPES = [
  (w: WebContents, l: WillNavigateListener) => w.on('will-navigate', l),
  (w: WebContents, l: WillRedirectListener) => w.on('will-redirect', l),
  (w: WebContents, l: WillAttachWebviewListener) => w.on('will-attach-webview', l),
  (a: App, l: WebContentsCreatedListener) => a.on('web-contents-created', l),
  (a: App, l: SecondInstanceListener) => a.on('second-instance', l),
  (a: App, l: WillQuitListener) => a.on('will-quit', l),
  (b: BrowserWindow, l: AppCommandListener) => b.on('app-command', l),
  (u: UtilityProcess, l: UtilityErrorListener) => u.on('error', l),
  (u: UtilityProcess, l: UtilityExitListener) => u.on('exit', l),
  (u: UtilityProcess, l: UtilityMessageListener) => u.on('message', l),
];

/** An Electron event (`Electron.Event<Params>`) that remembers whether `preventDefault` was called. */
export function electronEvent<P extends object>(params: P): Electron.Event<P> {
  let prevented = false;
  return Object.assign(
    {
      preventDefault: () => {
        prevented = true;
      },
      get defaultPrevented() {
        return prevented;
      },
    },
    params,
  );
}

/** Listeners by event name, as an EventEmitter keeps them (`once` ones removed after their call). */
class Listeners {
  readonly #byEvent = new Map<string, { listener: (...args: never[]) => void; once: boolean }[]>();

  add(event: string, listener: (...args: never[]) => void, once = false): void {
    this.#byEvent.set(event, [...(this.#byEvent.get(event) ?? []), { listener, once }]);
  }

  /** Calls every listener of `event` with `args` (typed by the caller from Electron's declaration). */
  emit<A extends unknown[]>(event: string, ...args: A): void {
    const entries = this.#byEvent.get(event) ?? [];
    this.#byEvent.set(event, entries.filter((e) => !e.once));
    for (const { listener } of entries) (listener as unknown as (...a: A) => void)(...args);
  }

  count(event: string): number {
    return this.#byEvent.get(event)?.length ?? 0;
  }

  /** An `on`/`once` method for a fake, cast to the Electron type (see the file's comment). */
  method<T>(owner: object, once = false): T {
    return ((event: string, listener: (...args: never[]) => void) => {
      this.add(event, listener, once);
      return owner;
    }) as unknown as T;
  }
}

/** Electron's window-open handler (`webContents.setWindowOpenHandler`). */
type WindowOpenHandler = Parameters<WebContents['setWindowOpenHandler']>[0];

/** A web contents: its navigation events, its window-open handler and webview attachment. */
export class FakeWebContents {
  readonly listeners = new Listeners();
  windowOpenHandler: WindowOpenHandler | null = null;
  readonly contents: GuardedWebContents;

  constructor() {
    this.contents = {
      on: this.listeners.method<WebContents['on']>(this),
      setWindowOpenHandler: (handler) => {
        this.windowOpenHandler = handler;
      },
    };
  }

  /** Electron's `WebContents`, for a listener that receives one (`web-contents-created`); only the picked part exists. */
  get asWebContents(): WebContents {
    return this.contents as unknown as WebContents;
  }

  /**
   * The page (main frame) starts navigating to `url`, as `will-navigate` reports it: the details
   * event, then the deprecated positional arguments.
   * @returns whether a listener called preventDefault
   */
  navigate(url: string): boolean {
    const details = electronEvent<WebContentsWillNavigateEventParams>({ url, isSameDocument: false, isMainFrame: true, frame: null, initiator: null });
    this.listeners.emit<Parameters<WillNavigateListener>>('will-navigate', details, url, false, true, 1, 1);
    return details.defaultPrevented;
  }

  /** A server redirect of a navigation to `url` (`will-redirect`). @returns whether it was prevented */
  redirect(url: string): boolean {
    const details = electronEvent<WebContentsWillRedirectEventParams>({ url, isSameDocument: false, isMainFrame: true, frame: null, initiator: null });
    this.listeners.emit<Parameters<WillRedirectListener>>('will-redirect', details, url, false, true, 1, 1);
    return details.defaultPrevented;
  }

  /** `window.open(url)` from the page, as the window-open handler receives it. */
  open(url: string): WindowOpenHandlerResponse {
    if (!this.windowOpenHandler) throw new Error('no window-open handler was set');
    const details: HandlerDetails = { url, frameName: '', features: '', disposition: 'new-window', referrer: { url: 'letterdesk://app/index.html', policy: 'strict-origin-when-cross-origin' } };
    return this.windowOpenHandler(details);
  }

  /** A `<webview src>` about to attach (`will-attach-webview`). @returns whether it was prevented */
  attachWebview(src: string): boolean {
    const event = electronEvent({});
    this.listeners.emit<Parameters<WillAttachWebviewListener>>('will-attach-webview', event, { sandbox: false }, { src });
    return event.defaultPrevented;
  }
}

type PermissionCheckHandler = NonNullable<Parameters<Session['setPermissionCheckHandler']>[0]>;
type PermissionRequestHandler = NonNullable<Parameters<Session['setPermissionRequestHandler']>[0]>;
type HeadersReceivedListener = NonNullable<Parameters<WebRequest['onHeadersReceived']>[0]>;

/** A session: its permission handlers and its response-header hook, as set by the app. */
export class FakeSession {
  checkHandler: PermissionCheckHandler | null = null;
  requestHandler: PermissionRequestHandler | null = null;
  headersListener: HeadersReceivedListener | null = null;
  readonly session: HardenedSession;

  constructor() {
    this.session = {
      setPermissionCheckHandler: (handler) => {
        this.checkHandler = handler;
      },
      setPermissionRequestHandler: (handler) => {
        this.requestHandler = handler;
      },
      webRequest: {
        // Electron declares two overloads, (filter, listener) and (listener).
        onHeadersReceived: ((first: unknown, second?: unknown) => {
          this.headersListener = (second === undefined ? first : second) as HeadersReceivedListener | null;
        }) as WebRequest['onHeadersReceived'],
      },
    };
  }

  /** A permission check (`navigator.clipboard.writeText`, …) as Chromium asks it. */
  check(webContents: WebContents | null, permission: Parameters<PermissionCheckHandler>[1], requestingOrigin: string, details: PermissionCheckHandlerHandlerDetails): boolean {
    if (!this.checkHandler) throw new Error('no permission check handler was set');
    return this.checkHandler(webContents, permission, requestingOrigin, details);
  }

  /** A permission request; resolves with what the handler answered through its callback. */
  request(webContents: WebContents, permission: Parameters<PermissionRequestHandler>[1], details: Parameters<PermissionRequestHandler>[3]): Promise<boolean> {
    const handler = this.requestHandler;
    if (!handler) throw new Error('no permission request handler was set');
    return new Promise((resolve) => handler(webContents, permission, resolve, details));
  }

  /** A response's headers passing the hook; resolves with what the listener answered. */
  headers(details: OnHeadersReceivedListenerDetails): Promise<Parameters<Parameters<HeadersReceivedListener>[1]>[0]> {
    const listener = this.headersListener;
    if (!listener) throw new Error('no onHeadersReceived listener was set');
    return new Promise((resolve) => listener(details, resolve));
  }
}

/** The app: its lifecycle events, the single-instance lock and quit. */
export class FakeApp {
  readonly listeners = new Listeners();
  /** What `requestSingleInstanceLock` answers: false when another instance holds the lock. */
  lockGranted = true;
  quits = 0;
  /** How many `will-quit` events were prevented. */
  prevented = 0;
  /** Whether a quit went through (a `will-quit` nobody prevented). */
  quitFinished = false;
  readonly app: Pick<App, 'on' | 'quit' | 'requestSingleInstanceLock'>;

  constructor() {
    this.app = {
      on: this.listeners.method<App['on']>(this),
      // As in Electron: quitting (windows already closed) emits `will-quit`, which may hold it.
      quit: () => {
        this.quits += 1;
        if (!this.willQuit()) this.quitFinished = true;
      },
      requestSingleInstanceLock: () => this.lockGranted,
    };
  }

  /** Emits `will-quit`. @returns whether a listener prevented it */
  willQuit(): boolean {
    const event = electronEvent({});
    this.listeners.emit<Parameters<WillQuitListener>>('will-quit', event);
    if (event.defaultPrevented) this.prevented += 1;
    return event.defaultPrevented;
  }

  /** Another start of the app handed over (`second-instance`). */
  secondInstance(argv: string[] = ['/opt/Letterdesk/letterdesk'], workingDirectory = '/home/person'): void {
    this.listeners.emit<Parameters<SecondInstanceListener>>('second-instance', electronEvent({}), argv, workingDirectory, {});
  }

  /** Chromium created a web contents (`web-contents-created`). */
  webContentsCreated(contents: FakeWebContents): void {
    this.listeners.emit<Parameters<WebContentsCreatedListener>>('web-contents-created', electronEvent({}), contents.asWebContents);
  }
}

/** A browser window's part that raising it and its app commands use; records the calls in order. */
export class FakeWindow {
  readonly listeners = new Listeners();
  readonly calls: string[] = [];
  minimized = false;
  readonly window: Pick<BrowserWindow, 'isMinimized' | 'restore' | 'show' | 'focus' | 'on'>;

  constructor() {
    this.window = {
      isMinimized: () => this.minimized,
      restore: () => {
        this.calls.push('restore');
        this.minimized = false;
      },
      show: () => void this.calls.push('show'),
      focus: () => void this.calls.push('focus'),
      on: this.listeners.method<BrowserWindow['on']>(this),
    };
  }

  /** A Windows app command (`app-command`), e.g. `browser-backward`. */
  appCommand(command: string): void {
    this.listeners.emit<Parameters<AppCommandListener>>('app-command', electronEvent({}), command);
  }
}

/** Electron's `protocol` handler (`protocol.handle`). */
type ProtocolHandler = Parameters<Protocol['handle']>[1];

/** The protocol module: the schemes registered as privileged and the handlers. */
export class FakeProtocol {
  readonly privileged: Parameters<Protocol['registerSchemesAsPrivileged']>[0] = [];
  readonly handlers = new Map<string, ProtocolHandler>();
  readonly protocol: Pick<Protocol, 'handle' | 'registerSchemesAsPrivileged'> = {
    handle: (scheme, handler) => void this.handlers.set(scheme, handler),
    registerSchemesAsPrivileged: (schemes) => void this.privileged.push(...schemes),
  };

  /** A request of the page, as `protocol.handle` receives it (a fetch API `Request`). */
  async fetch(url: string, init?: RequestInit): Promise<Response> {
    const scheme = new URL(url).protocol.replace(/:$/, '');
    const handler = this.handlers.get(scheme);
    if (!handler) throw new Error(`no handler for ${scheme}:`);
    return handler(new Request(url, init));
  }
}

/** A forked utility process: its stderr, its messages both ways, its events. */
export class FakeUtilityProcess {
  readonly listeners = new Listeners();
  readonly stderr = new PassThrough();
  readonly sent: unknown[] = [];
  kills = 0;
  readonly #state: { pid: number | undefined } = { pid: undefined };
  readonly process: ForkedUtilityProcess;

  constructor() {
    const state = this.#state;
    this.process = {
      get pid() {
        return state.pid;
      },
      stderr: this.stderr,
      postMessage: (message: unknown) => void this.sent.push(message),
      kill: () => {
        this.kills += 1;
        return true;
      },
      on: this.listeners.method<UtilityProcess['on']>(this),
      once: this.listeners.method<UtilityProcess['once']>(this, true),
    };
  }

  /** The process started (`spawn`): its pid is known from now on. */
  spawn(pid: number): void {
    this.#state.pid = pid;
    this.listeners.emit<[]>('spawn');
  }

  /** A message from the process (`process.parentPort.postMessage`). */
  message(message: unknown): void {
    this.listeners.emit<Parameters<UtilityMessageListener>>('message', message);
  }

  /** A fatal V8 error (`error`), reported before the exit. */
  fatal(location: string, report: string): void {
    this.listeners.emit<Parameters<UtilityErrorListener>>('error', 'FatalError', location, report);
  }

  /** The process ended (`exit`). */
  exit(code: number): void {
    this.#state.pid = undefined;
    this.listeners.emit<Parameters<UtilityExitListener>>('exit', code);
  }
}

/** `utilityProcess.fork`, recording each call and handing out {@link FakeUtilityProcess}es. */
export function fakeFork(): { fork: ForkUtilityProcess; calls: { modulePath: string; args: string[]; options: ForkOptions; child: FakeUtilityProcess }[] } {
  const calls: { modulePath: string; args: string[]; options: ForkOptions; child: FakeUtilityProcess }[] = [];
  return {
    calls,
    fork: (modulePath, args, options) => {
      const child = new FakeUtilityProcess();
      calls.push({ modulePath, args, options, child });
      return child.process;
    },
  };
}
