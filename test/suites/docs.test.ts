/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code: it runs in Node, not inside n8n (CONTRIBUTING.md, Commands) */
/**
 * The docs as their readers meet them: the README (for people who use the nodes, also the package's
 * page on npm and the target of n8n's "Docs" links) stays short enough to read, and leads to a page a
 * topic under docs/, each of which leads back; CONTRIBUTING.md (for people who change the package)
 * holds every command; no link between them, to a file of the repository or to a heading, leads
 * nowhere; and every example workflow is linked where the docs use it. The codex files (`*.node.json`)
 * point n8n's "Docs" links at README headings, which must exist.
 *
 * Markdown is read with markdown-it (the links and headings as a renderer sees them, code blocks left
 * out) and headings are turned into anchors with github-slugger, the rule GitHub itself applies.
 */
import * as fs from 'fs';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import * as path from 'path';

import { REPO_DIR } from '../support/paths';

const README = 'README.md';
const CONTRIBUTING = 'CONTRIBUTING.md';
/** Where n8n's "Docs" links and the package's homepage point: the repository's page, which shows the README. */
const REPOSITORY_PAGE = 'https://github.com/n8n-nodes-stacks-hooks/n8n-nodes-stacks-hooks';
/** The README is read on npm and from n8n's "Docs" links: about 15 KB, never more than 16 KB (issue 54). */
const README_MAX_BYTES = 16_384;
/** The topic pages, each reached from the README. */
const PAGES = fs
	.readdirSync(path.join(REPO_DIR, 'docs'))
	.filter((name) => name.endsWith('.md'))
	.map((name) => `docs/${name}`);
/** The example workflows users import, each to be linked from the README or a topic page. */
const WORKFLOWS_DIR = 'test/examples/workflows';
const WORKFLOWS = fs
	.readdirSync(path.join(REPO_DIR, WORKFLOWS_DIR))
	.filter((name) => name.endsWith('.json'))
	.map((name) => `${WORKFLOWS_DIR}/${name}`);

const markdown = new MarkdownIt({ html: true });

interface Doc {
	links: string[];
	anchors: Set<string>;
	/** The text of every fenced or indented code block. */
	code: string[];
}

const docs = new Map<string, Doc>();

function read(file: string): Doc {
	const cached = docs.get(file);
	if (cached) return cached;
	const tokens = markdown.parse(fs.readFileSync(path.join(REPO_DIR, file), 'utf8'), {});
	const slugger = new GithubSlugger();
	const doc: Doc = { links: [], anchors: new Set(), code: [] };
	tokens.forEach((token, index) => {
		if (token.type === 'heading_open') {
			const text = (tokens[index + 1].children ?? []).filter((child) => child.type === 'text' || child.type === 'code_inline').map((child) => child.content).join('');
			doc.anchors.add(slugger.slug(text));
		}
		if (token.type === 'fence' || token.type === 'code_block') doc.code.push(token.content);
		for (const child of token.children ?? []) {
			const target = child.type === 'link_open' ? child.attrGet('href') : child.type === 'image' ? child.attrGet('src') : null;
			if (target) doc.links.push(target);
		}
	});
	docs.set(file, doc);
	return doc;
}

/** Why `link`, found in `from`, leads nowhere; undefined when it resolves. External addresses other than the repository's page are not followed. */
function brokenLink(from: string, link: string): string | undefined {
	let file: string;
	let anchor: string | undefined;
	if (link.startsWith(`${REPOSITORY_PAGE}#`)) {
		[file, anchor] = [README, link.slice(REPOSITORY_PAGE.length + 1)];
	} else if (/^[a-z]+:/i.test(link)) {
		return undefined;
	} else {
		const [target, fragment] = link.split('#');
		file = target ? path.posix.normalize(path.posix.join(path.posix.dirname(from), decodeURIComponent(target))) : from;
		anchor = fragment;
		if (!fs.existsSync(path.join(REPO_DIR, file))) return `${file} does not exist`;
	}
	if (anchor === undefined) return undefined;
	if (!file.endsWith('.md')) return `${file} is not a page with headings`;
	return read(file).anchors.has(anchor) ? undefined : `${file} has no heading #${anchor}`;
}

/** The repository file a relative link of `from` leads to (no anchor); undefined for an external address or an anchor alone. */
function linkedFile(from: string, link: string): string | undefined {
	if (link.startsWith(REPOSITORY_PAGE)) return README;
	if (/^[a-z]+:/i.test(link)) return undefined;
	const [target] = link.split('#');
	return target ? path.posix.normalize(path.posix.join(path.posix.dirname(from), decodeURIComponent(target))) : undefined;
}

/** The pages reached from the README by following links from page to page (the README included). */
function reachableFromReadme(): Set<string> {
	const reached = new Set<string>([README]);
	const queue = [README];
	while (queue.length > 0) {
		const from = queue.shift()!;
		for (const link of read(from).links) {
			const file = linkedFile(from, link);
			if (file && file.endsWith('.md') && file !== CONTRIBUTING && !reached.has(file) && fs.existsSync(path.join(REPO_DIR, file))) {
				reached.add(file);
				queue.push(file);
			}
		}
	}
	return reached;
}

function brokenLinks(from: string): string[] {
	return read(from)
		.links.map((link) => [link, brokenLink(from, link)] as const)
		.filter(([, why]) => why !== undefined)
		.map(([link, why]) => `${from}: ${link}: ${why}`);
}

function codexFiles(dir = path.join(REPO_DIR, 'nodes')): string[] {
	return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) return codexFiles(full);
		return entry.name.endsWith('.node.json') ? [full] : [];
	});
}

function urlsIn(value: unknown): string[] {
	if (typeof value === 'string') return /^https?:/.test(value) ? [value] : [];
	if (Array.isArray(value)) return value.flatMap(urlsIn);
	if (value && typeof value === 'object') return Object.values(value).flatMap(urlsIn);
	return [];
}

describe('the docs', () => {
	it(`keeps the README short enough to read, at most ${README_MAX_BYTES.toLocaleString('en')} bytes`, () => {
		expect(fs.statSync(path.join(REPO_DIR, README)).size).toBeLessThanOrEqual(README_MAX_BYTES);
	});

	it('links the README and CONTRIBUTING.md to each other', () => {
		expect(read(README).links.map((link) => link.split('#')[0])).toContain(CONTRIBUTING);
		expect(read(CONTRIBUTING).links.map((link) => link.split('#')[0])).toContain(README);
	});

	it.each([README, CONTRIBUTING])('%s: every link to a file of the repository or to a heading resolves', (file) => {
		expect(read(file).links.length).toBeGreaterThan(10);
		expect(brokenLinks(file)).toEqual([]);
	});

	it('has topic pages under docs/', () => {
		expect(PAGES.length).toBeGreaterThan(0);
	});

	it.each(PAGES)('%s: every link to a file of the repository or to a heading resolves', (page) => {
		expect(brokenLinks(page)).toEqual([]);
	});

	it.each(PAGES)('%s: is reached from the README (directly or through other pages), and links back to it', (page) => {
		expect([...reachableFromReadme()]).toContain(page);
		expect(read(page).links.map((link) => linkedFile(page, link))).toContain(README);
	});

	it.each(WORKFLOWS)('%s: is linked, by its file name, from the README or a topic page', (workflow) => {
		const linkedFrom = [README, ...PAGES].filter((doc) =>
			read(doc).links.some((link) => !/^[a-z]+:/i.test(link) && linkedFile(doc, link) === workflow && !brokenLink(doc, link)),
		);
		expect(linkedFrom).not.toEqual([]);
	});

	it("n8n's codex files point their documentation links at README headings that exist", () => {
		const files = codexFiles();
		expect(files.map((file) => path.basename(file)).sort()).toEqual(['StacksHooks.node.json', 'StacksHooksTrigger.node.json']);
		const links = files.flatMap((file) => urlsIn(JSON.parse(fs.readFileSync(file, 'utf8'))).map((url) => ({ file: path.relative(REPO_DIR, file), url })));
		expect(links.length).toBeGreaterThanOrEqual(4);
		const broken = links.map(({ file, url }) => ({ file, url, why: url.startsWith(`${REPOSITORY_PAGE}#`) ? brokenLink(README, url) : 'not a README heading' })).filter(({ why }) => why);
		expect(broken).toEqual([]);
	});

	it("the README gives the two commands a new contributor needs first: npm start and npm test", () => {
		const shell = read(README).code.join('\n');
		expect(shell).toMatch(/^npm start\b/m);
		expect(shell).toMatch(/^npm test\b/m);
	});

	it("CONTRIBUTING.md names every command of package.json a contributor runs", () => {
		const { scripts } = JSON.parse(fs.readFileSync(path.join(REPO_DIR, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
		// npm's lifecycle hook and build's own first step are not run by hand.
		const byHand = Object.keys(scripts).filter((name) => !['prepack', 'clean'].includes(name));
		const text = fs.readFileSync(path.join(REPO_DIR, CONTRIBUTING), 'utf8');
		const missing = byHand.filter((name) => !text.includes(`npm run ${name}`) && !(['test', 'start'].includes(name) && new RegExp(`^npm ${name}\\b`, 'm').test(text)));
		expect(missing).toEqual([]);
	});
});
