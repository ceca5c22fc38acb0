// tests/browser/approve-delete.mjs: the browser half of
// tests/integration/95-web-browser.sh. Drives Debian's chromium (headless,
// through the Chrome DevTools Protocol with puppeteer-core) against the
// daemon's pages as a person would: signs in with a token typed into the
// form, finds the pending delete preview, reads its blast radius, types the
// confirmation and submits. Before that it tries what must be refused: a
// wrong token, a viewer's approval, a wrong confirmation, a form without
// its CSRF token.
//
//   node approve-delete.mjs CONFIG.json
//
// CONFIG: {"base": "http://127.0.0.1:PORT", "cluster": "...", "queue":
// "...", "viewer_token_file": "...", "approver_token_file": "...",
// "shots": "DIR" (screenshots, PNG), "out": "FILE" (what was seen, JSON),
// "go": "FILE" (wait for it before the real approval: the shell reads the
// brokers first), "ready2"/"go2": "FILE" (the window override: the browser
// writes READY2 and waits for GO2, {"href": ..., "confirmation": ...}),
// "chromium": "/usr/bin/chromium"}
//
// Each step records what the browser saw (statuses, URLs, texts) into OUT;
// the shell script checks them (check_eq) and reads the brokers itself.
// Tokens are read from their files here and typed into the page; they are
// never printed.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const require = createRequire(cfg.node_modules + '/');
const puppeteer = require('puppeteer-core');
const seen = { steps: [] };
const save = () => writeFileSync(cfg.out, JSON.stringify(seen, null, 2));
const token = (f) => readFileSync(f, 'utf8').split('\n')[0];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let shot = 0;
async function snap(page, name) {
	shot += 1;
	const file = `${cfg.shots}/${String(shot).padStart(2, '0')}-${name}.png`;
	await page.screenshot({ path: file, fullPage: true });
	return file;
}

// Submit the form holding `button` and wait for the page it leads to: the
// final response's status, the statuses of the redirects before it, the URL.
async function submit(page, selector) {
	const [resp] = await Promise.all([
		page.waitForNavigation({ waitUntil: 'load', timeout: 60000 }),
		page.click(selector),
	]);
	return {
		status: resp ? resp.status() : 0,
		redirects: resp ? resp.request().redirectChain().map((r) => r.response() ? r.response().status() : 0) : [],
		url: page.url(),
		text: await page.evaluate(() => document.body.innerText),
	};
}

async function open(page, path) {
	const resp = await page.goto(cfg.base + path, { waitUntil: 'load' });
	return {
		status: resp.status(),
		redirects: resp.request().redirectChain().map((r) => r.response() ? r.response().status() : 0),
		url: page.url(),
		headers: resp.headers(),
		text: await page.evaluate(() => document.body.innerText),
	};
}

async function signIn(page, file) {
	await open(page, '/login');
	await page.type('input[name=token]', token(file));
	return submit(page, 'form[action="/login"] button');
}

async function signOut(page) {
	return submit(page, 'form[action="/logout"] button');
}

// The pending preview of the cluster whose summary names a delete: its
// link on the status page.
async function pendingDelete(page) {
	return page.evaluate((cluster) => {
		const sec = document.getElementById('cluster-' + cluster);
		if (!sec) return null;
		for (const tr of sec.querySelectorAll('tr')) {
			const st = tr.querySelector('.state-pending');
			const a = tr.querySelector('a[href*="/previews/"]');
			if (st && a && /delete/.test(tr.innerText)) return a.getAttribute('href');
		}
		return null;
	}, cfg.cluster);
}

const browser = await puppeteer.launch({
	executablePath: cfg.chromium,
	headless: true, // puppeteer passes --headless=new
	args: ['--no-sandbox', '--headless=new', '--disable-gpu', '--no-first-run'],
	defaultViewport: { width: 1280, height: 900 },
});
try {
	seen.browser = await browser.version();
	seen.args = browser.process().spawnargs.filter((a) => a.startsWith('--headless') || a === '--no-sandbox');
	const page = await browser.newPage();
	const cdp = await page.createCDPSession(); // the protocol itself, for the record
	seen.protocol = (await cdp.send('Browser.getVersion')).protocolVersion;
	page.on('console', (m) => seen.steps.push({ console: m.text() }));

	// 1. nobody: the status page sends the browser to the sign-in form
	let r = await open(page, '/');
	seen.anonymous = { status: r.status, redirects: r.redirects, url: r.url, csp: r.headers['content-security-policy'] || null };
	seen.login_headers = {
		csp: r.headers['content-security-policy'] || null,
		nosniff: r.headers['x-content-type-options'] || null,
		cache: r.headers['cache-control'] || null,
		referrer: r.headers['referrer-policy'] || null,
	};
	await snap(page, 'sign-in');

	// 2. a wrong token: the form again, 401, a message
	await page.type('input[name=token]', 'not-a-token-of-this-agent-0000');
	r = await submit(page, 'form[action="/login"] button');
	seen.wrong_token = { status: r.status, url: r.url, says: /wrong token/.test(r.text) };
	await snap(page, 'wrong-token');

	// 3. the viewer: sees the preview, has no approve form, and a POST of
	// the form (built in the page, with the viewer's own CSRF token and the
	// right confirmation) is refused
	r = await signIn(page, cfg.viewer_token_file);
	seen.viewer_login = { status: r.status, redirects: r.redirects, url: r.url, says: r.text.match(/signed in as \S+ \(\w+\)/)?.[0] || null };
	const vhref = await pendingDelete(page);
	seen.viewer_found = vhref;
	if (vhref) {
		r = await open(page, vhref);
		const confirmation = await page.evaluate(() => {
			const pre = document.getElementById('confirmation');
			return pre ? pre.innerText : null;
		});
		seen.viewer_preview = {
			status: r.status,
			has_form: confirmation !== null,
			says: /Approving needs the approver role/.test(r.text),
		};
		await snap(page, 'viewer-preview');
		await page.evaluate((href, conf) => {
			const f = document.createElement('form');
			f.method = 'post';
			f.action = href + '/approve';
			for (const [k, v] of [['csrf', document.querySelector('form[action="/logout"] input[name=csrf]').value], ['confirmation', conf]]) {
				const i = document.createElement('input');
				i.type = 'hidden';
				i.name = k;
				i.value = v;
				f.appendChild(i);
			}
			const b = document.createElement('button');
			b.id = 'viewer-approve';
			f.appendChild(b);
			document.body.appendChild(f);
		}, vhref, cfg.confirmation);
		r = await submit(page, '#viewer-approve');
		seen.viewer_approve = { status: r.status, says: /approver role/.test(r.text) };
		await snap(page, 'viewer-approve-refused');
	}
	r = await signOut(page);
	seen.viewer_logout = { status: r.status, redirects: r.redirects, url: r.url };

	// 4. the approver: the status page, the pending delete preview
	r = await signIn(page, cfg.approver_token_file);
	seen.approver_login = { status: r.status, redirects: r.redirects, url: r.url, says: r.text.match(/signed in as \S+ \(\w+\)/)?.[0] || null };
	seen.status_text = r.text;
	await snap(page, 'status');
	const href = await pendingDelete(page);
	seen.found = href;
	if (!href) throw new Error('no pending delete preview on the status page');
	r = await open(page, href);
	seen.preview = {
		status: r.status,
		csp: r.headers['content-security-policy'] || null,
		text: r.text,
		confirmation: await page.evaluate(() => document.getElementById('confirmation')?.innerText ?? null),
		// the blast radius as the page shows it, per node: the list items
		// under each node's bold name
		nodes: await page.evaluate(() => {
			const out = {};
			for (const li of document.querySelectorAll('.plan li')) {
				const b = li.querySelector(':scope > strong');
				if (!b) continue;
				const sub = [...li.querySelectorAll(':scope > ul > li')].map((x) => x.innerText);
				out[b.innerText] = (out[b.innerText] || []).concat(sub);
			}
			return out;
		}),
		tables: await page.evaluate(() => document.querySelectorAll('.plan table').length),
		scripts: await page.evaluate(() => document.scripts.length),
		// the blast radius drawn by the server (Graphviz SVG where plan.md's
		// Mermaid block stands): each drawing's texts and width on screen
		graphs: await page.evaluate(() => [...document.querySelectorAll('.plan figure.graph > svg')].map((g) => ({
			texts: [...g.querySelectorAll('text')].map((t) => t.textContent),
			width: Math.round(g.getBoundingClientRect().width),
		}))),
		mermaid_code: await page.evaluate(() => document.querySelectorAll('.plan code.language-mermaid').length),
	};
	await snap(page, 'preview');

	// 4b. a name is user data: the v1 preview created a queue whose name
	// is markup; its page shows the name as text, parses none of it
	if (cfg.v1_href) {
		r = await open(page, cfg.v1_href);
		seen.hostile = await page.evaluate((name) => ({
			shown: document.body.textContent.includes(name),
			elements: document.querySelectorAll('main i, main img, main script').length,
			scripts: document.scripts.length,
		}), cfg.hostile);
		await snap(page, 'hostile-name');
		await open(page, href);
	}

	// 5. a wrong confirmation: 422, the page says so, nothing written
	await page.type('input[name=confirmation]', 'delete everything please');
	r = await submit(page, 'form[action$="/approve"] button');
	seen.wrong_confirmation = { status: r.status, url: r.url, message: await page.evaluate(() => document.getElementById('message')?.innerText ?? null) };
	await snap(page, 'wrong-confirmation');

	// 6. the right confirmation, but the form's CSRF token removed: 403
	await open(page, href);
	await page.evaluate(() => document.querySelector('form[action$="/approve"] input[name=csrf]').remove());
	await page.type('input[name=confirmation]', seen.preview.confirmation || '');
	r = await submit(page, 'form[action$="/approve"] button');
	seen.no_csrf = { status: r.status, says: /CSRF token is missing/.test(r.text) };
	await snap(page, 'missing-csrf');

	// 6b. another origin of the same site (127.0.0.1, another port: the
	// SameSite=Strict cookie goes along) posts the approve form, even with
	// this session's CSRF token and the right text: refused by where it
	// comes from (Sec-Fetch-Site)
	if (cfg.evil_dir) {
		await open(page, href);
		const csrf = await page.evaluate(() => document.querySelector('form[action$="/approve"] input[name=csrf]').value);
		const esc = (t) => t.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
		writeFileSync(`${cfg.evil_dir}/index.html`, `<!DOCTYPE html><title>another site</title>
<form method="post" action="${esc(cfg.base + href)}/approve">
<input type="hidden" name="csrf" value="${esc(csrf)}">
<input type="hidden" name="confirmation" value="${esc(seen.preview.confirmation || '')}">
<button id="go">win a prize</button></form>`);
		await page.goto(cfg.evil_base + '/index.html', { waitUntil: 'load' });
		r = await submit(page, '#go');
		seen.cross_origin = { status: r.status, says: /sent from another site/.test(r.text) };
		await snap(page, 'cross-origin-refused');
	}

	// 7. the shell reads the brokers and the outbox, then says go
	save();
	writeFileSync(cfg.ready, 'ready\n');
	for (let i = 0; !existsSync(cfg.go); i++) {
		if (i > 1200) throw new Error('no go from the shell in 120 s');
		await sleep(100);
	}

	// 8. approve as a person would: open, type what the page says, submit
	await open(page, href);
	await page.type('input[name=confirmation]', seen.preview.confirmation || '');
	r = await submit(page, 'form[action$="/approve"] button');
	seen.approve = { status: r.status, redirects: r.redirects, url: r.url, state: await page.evaluate(() => document.querySelector('.state')?.textContent ?? null) };
	await snap(page, 'approved');

	// 9. the daemon applies it: the page shows the result once it has one
	let state = null;
	for (let i = 0; i < 120; i++) {
		r = await open(page, href);
		state = await page.evaluate(() => document.querySelector('.state')?.textContent ?? null);
		if (/applied/i.test(state || '')) break;
		await sleep(500);
	}
	seen.applied = { state, text: r.text };
	await snap(page, 'applied');
	r = await open(page, '/');
	seen.status_after = r.text;
	await snap(page, 'status-after');

	// 10. the operator's delete of a queue nobody declared, from the
	// cluster's form: the disconnect box is unticked unless ticked, the
	// caveat beside it; the daemon plans it into a new preview, approved
	// like any other
	if (cfg.dq_queue) {
		const form = `#cluster-${cfg.cluster} form[action$="/delete-queue"]`;
		seen.dq_form = await page.evaluate((sel) => {
			const f = document.querySelector(sel);
			const box = f && f.querySelector('input[name=disconnect_consumers]');
			return {
				found: !!f,
				checkbox: box ? box.type : null,
				checked: box ? box.checked : null,
				caveat: f ? f.innerText.includes('may reconnect and re-create an auto-created queue') : false,
			};
		}, form);
		await page.type(`${form} input[name=queue]`, cfg.dq_queue);
		await snap(page, 'delete-queue-form');
		r = await submit(page, `${form} button`);
		seen.dq_post = { status: r.status, redirects: r.redirects, url: r.url, text: r.text };
		await snap(page, 'delete-queue-preview');
		const conf = await page.evaluate(() => document.getElementById('confirmation')?.innerText ?? null);
		seen.dq_post.confirmation = conf;
		if (conf) {
			await page.type('input[name=confirmation]', conf);
			r = await submit(page, 'form[action$="/approve"] button');
			seen.dq_approve = { status: r.status, redirects: r.redirects, url: r.url };
			for (let i = 0; i < 120; i++) {
				r = await open(page, new URL(seen.dq_post.url).pathname);
				state = await page.evaluate(() => document.querySelector('.state')?.textContent ?? null);
				if (/applied/i.test(state || '')) break;
				await sleep(500);
			}
			seen.dq_applied = state;
			await snap(page, 'delete-queue-applied');
		}
	}

	// 11. outside the sync window: the shell moves the daemon's window
	// clock out of it and commits a change; it writes the preview's path
	// and confirmation into GO2. Its approve form offers the override,
	// unticked; ticked and approved, the daemon applies it at once.
	if (cfg.ready2) {
		save();
		writeFileSync(cfg.ready2, 'ready\n');
		for (let i = 0; !existsSync(cfg.go2); i++) {
			if (i > 1200) throw new Error('no go2 from the shell in 120 s');
			await sleep(100);
		}
		const go2 = JSON.parse(readFileSync(cfg.go2, 'utf8'));
		r = await open(page, go2.href);
		seen.override_form = await page.evaluate(() => {
			const box = document.querySelector('form[action$="/approve"] input[name=override_window]');
			return {
				status_waiting: document.getElementById('waiting')?.innerText ?? null,
				checkbox: box ? box.type : null,
				checked: box ? box.checked : null,
				label: box ? box.parentElement.innerText : null,
			};
		});
		await snap(page, 'override-form');
		await page.type('input[name=confirmation]', go2.confirmation);
		await page.click('form[action$="/approve"] input[name=override_window]');
		r = await submit(page, 'form[action$="/approve"] button');
		seen.override_approve = { status: r.status, redirects: r.redirects, url: r.url };
		for (let i = 0; i < 120; i++) {
			r = await open(page, go2.href);
			state = await page.evaluate(() => document.querySelector('.state')?.textContent ?? null);
			if (/applied/i.test(state || '')) break;
			await sleep(500);
		}
		seen.override_applied = state;
		await snap(page, 'override-applied');
	}
} catch (e) {
	seen.error = String(e && e.stack ? e.stack : e);
} finally {
	save();
	if (!existsSync(cfg.ready)) writeFileSync(cfg.ready, 'failed\n');
	await browser.close();
}
