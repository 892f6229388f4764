// examples/campaign-from-postgres in a real n8n, for bench:campaign (and any suite that runs
// it): its table as issue 33 gives it, filled from generate_series; its two workflows saved
// under their own ids (the campaign calls the page by id), credentials bound by type, the
// page published (n8n 2.x runs only a published sub-workflow: campaignExample's saveBoth); its
// totals read back.
import { campaignExample } from './campaignExample.mts';
import { nodeOutput, type Execution } from './rest.mts';
import type { PgClient } from './services.mts';

const TOTALS = 'Totals so far';

/** The example's workflows, trigger and base Reference, and its import as a user does it. */
export const postgresExample = campaignExample('campaign-from-postgres');

export async function createRecipientsTable(db: PgClient): Promise<void> {
	await db.query(`CREATE TABLE campaign_recipients (
		id bigint PRIMARY KEY,
		first_name text NOT NULL,
		last_name text NOT NULL,
		email text NOT NULL,
		product_code text NOT NULL,
		amount numeric(12,2) NOT NULL,
		template_id integer NOT NULL
	)`);
}

/**
 * Adds the rows with IDs `from` to `to`, person<id>@example.com. Product, template and amount
 * change from hundred to hundred of IDs, never within one, so that a block of 1,000 IDs is ten
 * orders (100 recipients per order); 500 to 2,500 NGN a row. With `mixedAmounts` n > 0 instead,
 * one product and template, and n amounts mixed in every hundred (500 × (1 + id mod n) NGN), so
 * that a block of 1,000 IDs holds n series of ⌈1,000 ÷ n⌉ rows.
 */
export async function fillRecipients(
	db: PgClient,
	from: number,
	to: number,
	mixedAmounts = 0,
): Promise<void> {
	await db.query(
		`INSERT INTO campaign_recipients
		SELECT id, 'First' || id, 'Last' || id, 'person' || id || '@example.com',
			CASE WHEN $3::int > 0 THEN 'VCH-INSTANT'
				ELSE (ARRAY['VCH-INSTANT', 'VCH-AMAZON', 'VCH-JUMIA'])[(id / 100) % 3 + 1] END,
			CASE WHEN $3::int > 0 THEN 500 * (1 + id % $3::int)
				ELSE (ARRAY[500, 1000, 2500])[(id / 300) % 3 + 1] END,
			CASE WHEN $3::int > 0 THEN 1 ELSE (ARRAY[1, 2, 7])[(id / 100) % 3 + 1] END
		FROM generate_series($1::bigint, $2::bigint) AS id`,
		[from, to, mixedAmounts],
	);
}

/** What Totals so far says after the last page. */
export interface CampaignTotals {
	pages: number;
	rows: number;
	bought: number;
	held: number;
	refusedOrFailed: number;
	spentNgn: number;
	/** The first rows not bought, of every page: the pages' own executions are not saved. */
	failures: Array<{ id: string; email: string; error: string }>;
}

export function campaignTotals(ex: Execution): CampaignTotals {
	return nodeOutput(ex, TOTALS).at(-1) as unknown as CampaignTotals;
}
