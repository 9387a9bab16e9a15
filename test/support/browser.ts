/* eslint-disable no-console, @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * A real browser for the editor check: Debian's Chromium (installed with
 * apt-get when missing and we are root), driven by playwright-core, which
 * downloads no browser. Every request to anywhere but the n8n under test is
 * aborted, so the check never leaves this machine.
 */
import * as fs from 'fs';
import { type Browser, type BrowserContext, chromium, type Page, type Request, type Response, type WebSocket } from 'playwright-core';

import { type DebianPackage, ensureDebianPackages } from './debian';

export const CHROMIUM_PATH = '/usr/bin/chromium';

const CHROMIUM_ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

/** Debian's Chromium, as ensureDebianPackages takes it (with its recommended fonts, for readable screenshots). */
export const CHROMIUM_PACKAGE: DebianPackage = { name: 'chromium', installed: () => fs.existsSync(CHROMIUM_PATH), withRecommends: true };

/** The path of Debian's Chromium, installed with apt-get when missing and we are root (about a minute). */
export async function ensureChromium(log: (message: string) => void = console.log): Promise<string> {
	await ensureDebianPackages([CHROMIUM_PACKAGE], log);
	return CHROMIUM_PATH;
}

export interface EditorBrowser {
	browser: Browser;
	context: BrowserContext;
	page: Page;
	/** Requests the browser tried to make to anywhere but n8n (all aborted). */
	blocked: string[];
	close(): Promise<void>;
}

/** Headless Chromium with a page on `baseUrl`'s origin; everything else is refused. Self-signed HTTPS is accepted. */
export async function openBrowser(baseUrl: string): Promise<EditorBrowser> {
	const browser = await chromium.launch({ executablePath: await ensureChromium(), headless: true, args: CHROMIUM_ARGS });
	const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1440, height: 900 } });
	const origin = new URL(baseUrl).origin;
	const blocked: string[] = [];
	await context.route(
		(url) => url.origin !== origin && url.protocol !== 'data:' && url.protocol !== 'blob:',
		(route) => {
			blocked.push(route.request().url());
			return route.abort('blockedbyclient');
		},
	);
	const page = await context.newPage();
	return { browser, context, page, blocked, close: () => browser.close() };
}

/** Signs in on n8n's sign-in page and waits for the app to leave it. */
export async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
	await page.goto(`${baseUrl}/signin`);
	await page.fill('input[name=emailOrLdapLoginId]', email);
	await page.fill('input[name=password]', password);
	await page.click('[data-test-id=form-submit-button]');
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 30_000 });
}

/** Opens `url` and waits for the canvas's nodes; closes the "Production Checklist" pop-over if it shows. */
async function openCanvas(page: Page, url: string): Promise<void> {
	await page.goto(url);
	await page.waitForSelector('[data-test-id=canvas-node]', { timeout: 30_000 });
	await page.waitForLoadState('networkidle').catch(() => undefined);
	// Published workflows get the pop-over a moment after they render.
	const checklistClose = page.locator('[data-test-id=suggested-actions-close]');
	const shown = await checklistClose
		.waitFor({ state: 'visible', timeout: 3000 })
		.then(() => true)
		.catch(() => false);
	if (shown) await checklistClose.click();
	await page.waitForTimeout(500);
}

/** Opens a workflow in the editor and waits for its nodes. */
export async function openWorkflow(page: Page, baseUrl: string, workflowId: string): Promise<void> {
	await openCanvas(page, `${baseUrl}/workflow/${workflowId}`);
}

/** Opens one execution of a workflow (its Executions tab), whose nodes' panels show what that run output. */
export async function openExecution(page: Page, baseUrl: string, workflowId: string, executionId: string): Promise<void> {
	await openCanvas(page, `${baseUrl}/workflow/${workflowId}/executions/${executionId}`);
}

export const canvasNode = (page: Page, name: string) =>
	page.locator(`[data-test-id=canvas-node][data-node-name="${name}"]`);

/** Double-clicks a node on the canvas and waits for its parameter panel (NDV). */
export async function openNodePanel(page: Page, name: string): Promise<void> {
	await canvasNode(page, name).dblclick();
	await page.waitForSelector('[data-test-id=ndv] [data-test-id=node-parameters]', { timeout: 15_000 });
	await page.waitForTimeout(800);
}

export async function closeNodePanel(page: Page): Promise<void> {
	await page.click('[data-test-id=ndv-close-button]');
	await page.waitForSelector('[data-test-id=ndv] [data-test-id=node-parameters]', { state: 'detached', timeout: 10_000 });
}

/** The labels of the parameters the open panel shows (first line of each, deduplicated, in order). */
export async function panelLabels(page: Page): Promise<string[]> {
	const texts = await page.$$eval(
		'[data-test-id=ndv] [data-test-id=node-parameters] label, [data-test-id=ndv] [data-test-id=input-label]',
		(elements) => elements.map((element) => (element as unknown as { innerText: string }).innerText.split('\n')[0].trim()),
	);
	return [...new Set(texts.filter(Boolean))];
}

/** The `src` of every image inside `selector`. */
export async function imageSources(page: Page, selector: string): Promise<string[]> {
	return await page.$$eval(`${selector} img`, (images) => images.map((image) => image.getAttribute('src') ?? ''));
}

/** Whether every image inside `selector` has loaded with a size (a broken icon has none). */
export async function imagesLoaded(page: Page, selector: string): Promise<boolean> {
	type Img = { complete: boolean; naturalWidth: number };
	return await page.$$eval(`${selector} img`, (images) =>
		images.length > 0 && images.every((image) => (image as unknown as Img).complete && (image as unknown as Img).naturalWidth > 0),
	);
}

/** One thing the page exchanged with n8n: a push message (`push`, its `type`), or a REST request or its answer. */
export interface TrafficEvent {
	/** Milliseconds since the recording started. */
	at: number;
	kind: 'push' | 'request' | 'response';
	/** The push message's type (e.g. testWebhookReceived), or the request's method and path (with the status for an answer). */
	what: string;
	/** The push message's executionId, when it has one. */
	executionId?: string;
}

export interface TrafficRecorder {
	events: TrafficEvent[];
	/** Forgets what was recorded so far; times count from now. */
	reset(): void;
	/** The events as lines, `+1234 ms  push testWebhookReceived (execution 7)`. */
	lines(): string[];
	stop(): void;
}

/**
 * Records, with times, the push messages n8n sends the page over its websocket (`/rest/push`; opened
 * after this call, i.e. on the next navigation) and the page's requests to n8n's REST API (`/rest/…`,
 * not the push connection) and their answers. The order of a run request's answer and the push
 * messages of the execution it starts is what the editor's state depends on.
 */
export function recordTraffic(page: Page): TrafficRecorder {
	let start = Date.now();
	const events: TrafficEvent[] = [];
	const add = (kind: TrafficEvent['kind'], what: string, executionId?: string) =>
		events.push({ at: Date.now() - start, kind, what, ...(executionId !== undefined && { executionId }) });
	const restPath = (url: string) => {
		const parsed = new URL(url);
		return parsed.pathname.startsWith('/rest/') && parsed.pathname !== '/rest/push' ? parsed.pathname : undefined;
	};
	const onFrame = (payload: string | Buffer) => {
		const text = typeof payload === 'string' ? payload : payload.toString('utf8');
		let parsed: unknown;
		try {
			parsed = JSON.parse(text);
		} catch {
			return; // heartbeats
		}
		for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
			const { type, data } = (message ?? {}) as { type?: unknown; data?: { executionId?: unknown } };
			if (typeof type !== 'string') continue;
			add('push', type, data?.executionId === undefined ? undefined : String(data.executionId));
		}
	};
	const onWebSocket = (socket: WebSocket) => {
		if (new URL(socket.url()).pathname === '/rest/push') socket.on('framereceived', ({ payload }) => onFrame(payload));
	};
	const onRequest = (request: Request) => {
		const pathname = restPath(request.url());
		if (pathname) add('request', `${request.method()} ${pathname}`);
	};
	const onResponse = (response: Response) => {
		const pathname = restPath(response.url());
		if (pathname) add('response', `${response.request().method()} ${pathname} ${response.status()}`);
	};
	page.on('websocket', onWebSocket);
	page.on('request', onRequest);
	page.on('response', onResponse);
	return {
		events,
		reset() {
			events.length = 0;
			start = Date.now();
		},
		lines: () =>
			events.map(({ at, kind, what, executionId }) => `+${String(at).padStart(6)} ms  ${kind.padEnd(8)} ${what}${executionId ? ` (execution ${executionId})` : ''}`),
		stop() {
			page.off('websocket', onWebSocket);
			page.off('request', onRequest);
			page.off('response', onResponse);
		},
	};
}
