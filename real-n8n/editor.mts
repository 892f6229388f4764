// Drives n8n's editor in Debian's chromium (playwright-core; no browser is
// ever downloaded): logs in, opens a workflow, finds Voucher Service in the
// node panel, opens its actions (operations) list, and opens the trigger's
// webhook URL panel. Saves a screenshot of each step and reports what it saw.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { chromium, type Page } from 'playwright-core';

import { OWNER } from './rest.mts';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export interface EditorTour {
	url: string;
	owner?: typeof OWNER;
	/** A workflow to open and add the node to (any; not saved). */
	workflowId: string;
	/** A workflow whose first node is the Voucher Service Trigger. */
	triggerWorkflowId: string;
	outDir: string;
	/** Screenshot file names; a step without a name is not captured. */
	shots?: Partial<Record<'workflow' | 'nodePanel' | 'actions' | 'webhookUrls', string>>;
	/** Words to type into the node panel's search, each alone. */
	searchWords?: string[];
}

export interface EditorFindings {
	/** Text of each entry found for "Voucher Service" in the node panel. */
	panelItems: string[];
	/** The description the panel shows under the Voucher Service entry. */
	panelDescription: string;
	/** The node's actions as the panel lists them. */
	actions: string[];
	/** The panel's own count, from its "Actions (n)" heading. */
	actionsHeading: string;
	/** The entries the node panel lists for each of the tour's search words. */
	searches: Record<string, string[]>;
	/** src and natural width of the node icon images the panel showed. */
	icons: Array<{ src: string; width: number }>;
	productionUrl: string;
	files: string[];
	seconds: Record<string, number>;
}

async function login(page: Page, url: string, owner: typeof OWNER): Promise<void> {
	await page.goto(`${url}/signin`);
	await page.fill('input[name="emailOrLdapLoginId"]', owner.email);
	await page.fill('input[name="password"]', owner.password);
	await page.click('[data-test-id="form-submit-button"]');
	await page.waitForURL((u) => !u.pathname.startsWith('/signin'), { timeout: 60_000 });
}

export async function tourEditor(tour: EditorTour): Promise<EditorFindings> {
	const owner = tour.owner ?? OWNER;
	const shots = tour.shots ?? {};
	mkdirSync(tour.outDir, { recursive: true });
	const files: string[] = [];
	const seconds: Record<string, number> = {};
	let t0 = Date.now();
	const lap = (label: string) => {
		seconds[label] = (Date.now() - t0) / 1000;
		t0 = Date.now();
	};
	const shot = async (page: Page, key: keyof NonNullable<EditorTour['shots']>) => {
		if (!shots[key]) return;
		const path = join(tour.outDir, shots[key]!);
		await page.screenshot({ path });
		files.push(path);
	};

	const browser = await chromium.launch({
		executablePath: CHROMIUM,
		args: [
			'--no-sandbox',
			'--disable-gpu',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
			'--no-first-run',
			'--disable-quic',
		],
	});
	try {
		const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
		page.setDefaultTimeout(60_000);
		await login(page, tour.url, owner);
		lap('login');

		// The node panel, searched like a user would.
		await page.goto(`${tour.url}/workflow/${tour.workflowId}`);
		await page.locator('[data-test-id="canvas-node"]').first().waitFor();
		await shot(page, 'workflow');
		lap('open workflow');
		await page.click('[data-test-id="node-creator-plus-button"]');
		await page.fill('[data-test-id="node-creator-search-bar"]', 'Voucher Service');
		const item = page
			.locator('[data-test-id="node-creator-item-name"]', { hasText: 'Voucher Service' })
			.first();
		await item.waitFor();
		const panelItems = await page
			.locator('[data-test-id="node-creator-item-name"]')
			.allTextContents();
		const panelDescription = (
			(await page
				.locator('[data-test-id="item-iterator-item"]', { has: item })
				.first()
				.locator('[data-test-id="node-creator-item-description"]')
				.textContent()) ?? ''
		).trim();
		const icons = await page.$$eval('img[src*="voucher"]', (imgs) =>
			imgs.map((img) => ({
				src: img.getAttribute('src') ?? '',
				width: (img as HTMLImageElement).naturalWidth,
			})),
		);
		await shot(page, 'nodePanel');

		const searchBar = '[data-test-id="node-creator-search-bar"]';
		const entryNames = '[data-test-id="node-creator-item-name"]';
		const searches: Record<string, string[]> = {};
		for (const word of tour.searchWords ?? []) {
			// Cleared first, so the entries read are this word's, not the last search's.
			await page.fill(searchBar, '');
			await item.waitFor({ state: 'detached' });
			await page.fill(searchBar, word);
			await item.waitFor({ timeout: 10_000 }).catch(() => {});
			searches[word] = (await page.locator(entryNames).allTextContents()).map((s) => s.trim());
		}
		if (tour.searchWords?.length) {
			await page.fill(searchBar, 'Voucher Service');
			await item.waitFor();
		}

		// Its actions: the operations list.
		await item.click();
		const heading = page.getByText(/^Actions \(\d+\)$/).first();
		await heading.waitFor();
		const actionsHeading = ((await heading.textContent()) ?? '').trim();
		// The search results fade out while the actions fade in: read the list once
		// it holds as many entries as the heading says, none of them the node itself.
		const count = Number(/\d+/.exec(actionsHeading)![0]);
		const names = page.locator(
			'[data-test-id="item-iterator-item"] [data-test-id="node-creator-item-name"]',
		);
		let actions: string[] = [];
		for (const deadline = Date.now() + 15_000; Date.now() < deadline; ) {
			actions = (await names.allTextContents()).map((s) => s.trim());
			if (actions.length === count && !actions.includes('Voucher Service')) break;
			await page.waitForTimeout(250);
		}
		await shot(page, 'actions');
		lap('node panel');

		// The trigger's webhook URLs.
		await page.goto(`${tour.url}/workflow/${tour.triggerWorkflowId}`);
		const trigger = page.locator('[data-test-id="canvas-node"]', {
			hasText: 'Voucher Service Trigger',
		});
		await trigger.waitFor();
		await trigger.dblclick();
		await page.locator('[data-test-id="ndv"]').waitFor();
		await page.getByText('Webhook URLs', { exact: true }).click();
		await page.getByText('Production URL', { exact: true }).click();
		const urlText = page.getByText(/\/webhook\/[0-9a-f-]+\/webhook/).first();
		await urlText.waitFor();
		const productionUrl = ((await urlText.textContent()) ?? '').trim();
		await shot(page, 'webhookUrls');
		lap('trigger webhook URLs');

		return {
			panelItems,
			panelDescription,
			actions,
			actionsHeading,
			searches,
			icons,
			productionUrl,
			files,
			seconds,
		};
	} finally {
		await browser.close();
	}
}
