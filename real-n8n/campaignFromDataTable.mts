// examples/campaign-from-data-table in a real n8n, for its e2e test and `npm run dev`: its Data
// Table made through n8n's REST API (named, and with the columns, as the example has them), rows
// added, changed, deleted and read back there; the campaign's totals read from an execution.
import { campaignExample } from './campaignExample.mts';
import { readExample } from './examples.mts';
import type { Execution, N8nRest, WorkflowJson } from './rest.mts';

/** The example's workflows, trigger and base Reference, and its import as a user does it. */
export const dataTableExample = campaignExample('campaign-from-data-table');

/** The status board (status-board.json), run by hand after the campaign. */
export const statusBoard = readExample('campaign-from-data-table/status-board.json');

const TOTALS = 'Totals so far';

const writeNode = dataTableExample.page.nodes.find((n) => n.name === 'Write the results')!;

/** The Data Table's name, as the example's nodes find it. */
const TABLE_NAME = (writeNode.parameters.dataTableId as { value: string }).value;

/**
 * The table's columns and their Data Table types, from the schema of the example's write: the
 * recipient columns (not written, so marked removed there) and the result columns.
 */
const TABLE_COLUMNS = (
	writeNode.parameters.columns as { schema: Array<{ id: string; type: string }> }
).schema.map(({ id, type }) => ({ name: id, type: type === 'dateTime' ? 'date' : type }));

/** A row as the Data Table holds it: n8n's id, the recipient and the example's result columns. */
export interface RecipientRow {
	id: number;
	first_name: string;
	last_name: string;
	email: string;
	amount: number;
	product_code: string;
	template_id: number;
	result: string | null;
	order_reference: string | null;
	order_number: string | null;
	voucher_status: string | null;
	error: string | null;
	result_at: string | null;
	/** When n8n last wrote the row. */
	updatedAt: string;
}

const BOUGHT = ['bought', 'bought earlier'];

/**
 * Whether a row's result columns say what the service's books hold for its person: one voucher,
 * its order and status, no error; or, with nothing held, not bought with the reason.
 */
export function resultAgrees(
	row: RecipientRow,
	held: Array<{ reference: string; status: string | null }> | undefined,
): boolean {
	if (!held) return row.result === 'not bought' && Boolean(row.error) && !row.order_reference;
	return (
		held.length === 1 &&
		BOUGHT.includes(row.result ?? '') &&
		row.order_reference === held[0].reference &&
		row.voucher_status === held[0].status &&
		row.error === '' &&
		Boolean(row.result_at)
	);
}

type Filter = {
	type: 'and';
	filters: Array<{ columnName: string; condition: string; value: number }>;
};
const idFilter = (condition: string, value: number): Filter => ({
	type: 'and',
	filters: [{ columnName: 'id', condition, value }],
});

/** One Data Table of the owner's personal project, through the editor's REST API. */
export class RecipientTable {
	/** n8n's id of the table, which a node picks From List or By ID. */
	readonly id: string;
	private readonly rest: N8nRest;
	private readonly path: string;

	// Plain fields, not parameter properties: npm run dev runs this file under Node's type stripping.
	private constructor(rest: N8nRest, id: string, path: string) {
		this.id = id;
		this.rest = rest;
		this.path = path;
	}

	/** Creates the example's table (by its name) in the owner's personal project. */
	static async create(rest: N8nRest): Promise<RecipientTable> {
		const project = await rest.request('GET', '/rest/projects/personal');
		const tables = `/rest/projects/${project.id}/data-tables`;
		const table = await rest.request('POST', tables, { name: TABLE_NAME, columns: TABLE_COLUMNS });
		return new RecipientTable(rest, table.id, `${tables}/${table.id}`);
	}

	/**
	 * Adds `count` recipients, person<n>@example.com from `firstPerson` on, in batches of 1,000;
	 * resolves to the ids n8n gave them. Product, template and amount follow the id each row is
	 * expected to get, from `expectedFirstId` on, and change from hundred to hundred of IDs, never
	 * within one, so that a block of 1,000 IDs is ten orders of 100; 500 to 2,500 NGN a row.
	 */
	async add(count: number, expectedFirstId: number, firstPerson: number): Promise<number[]> {
		const ids: number[] = [];
		for (let start = 0; start < count; start += 1000) {
			const data = [];
			for (let i = start; i < Math.min(start + 1000, count); i++) {
				const id = expectedFirstId + i;
				const person = firstPerson + i;
				data.push({
					first_name: `First${person}`,
					last_name: `Last${person}`,
					email: `person${person}@example.com`,
					product_code: ['VCH-INSTANT', 'VCH-AMAZON', 'VCH-JUMIA'][Math.floor(id / 100) % 3],
					amount: [500, 1000, 2500][Math.floor(id / 300) % 3],
					template_id: [1, 2, 7][Math.floor(id / 100) % 3],
				});
			}
			const added: Array<{ id: number }> = await this.rest.request('POST', `${this.path}/insert`, {
				data,
				returnType: 'id',
			});
			ids.push(...added.map((row) => row.id));
		}
		return ids;
	}

	/** Every row, in id order, read 250 at a time (the most the REST API gives). */
	async rows(): Promise<RecipientRow[]> {
		const rows: RecipientRow[] = [];
		for (;;) {
			const after = rows.at(-1)?.id ?? -1;
			const filter = encodeURIComponent(JSON.stringify(idFilter('gt', after)));
			const page: { data: RecipientRow[] } = await this.rest.request(
				'GET',
				`${this.path}/rows?take=250&sortBy=id:asc&filter=${filter}`,
			);
			if (page.data.length === 0) return rows;
			rows.push(...page.data);
		}
	}

	async update(id: number, data: Partial<RecipientRow>): Promise<void> {
		await this.rest.request('PATCH', `${this.path}/rows`, { filter: idFilter('eq', id), data });
	}

	/** Removes the table and its rows. */
	async drop(): Promise<void> {
		await this.rest.request('DELETE', this.path);
	}

	/** Deletes the rows with ids from `from` to `to`. */
	async delete(from: number, to = from): Promise<void> {
		const filter: Filter = {
			type: 'and',
			filters: [...idFilter('gte', from).filters, ...idFilter('lte', to).filters],
		};
		await this.rest.request(
			'DELETE',
			`${this.path}/rows?filter=${encodeURIComponent(JSON.stringify(filter))}`,
		);
	}
}

/**
 * The example's Data Table nodes with `table` picked From List, as a user picks it where the
 * node finds no table By Name (versions.mts, `dataTables.byName`).
 */
export const pickTableFromList = (table: RecipientTable) => (wf: WorkflowJson) => {
	for (const node of wf.nodes)
		if (node.type === 'n8n-nodes-base.dataTable')
			node.parameters.dataTableId = {
				__rl: true,
				mode: 'list',
				value: table.id,
				cachedResultName: TABLE_NAME,
			};
};

/** Sets Read the page's Limit, the most rows a page holds (at least 100), in the page workflow. */
export const setPageLimit = (wf: WorkflowJson, limit: number) => {
	const read = wf.nodes.find((n) => n.name === 'Read the page');
	if (read) read.parameters.limit = limit;
};

/** What all Data Tables of the instance take together, as n8n counts it against its size limit. */
export async function dataTablesBytes(rest: N8nRest): Promise<number> {
	return Number((await rest.request('GET', '/rest/data-tables-global/limits')).totalBytes);
}

/** What Totals so far says after the last page. */
export interface CampaignTotals {
	baseReference: string;
	fromId: number | null;
	lastPage: boolean;
	pages: number;
	rows: number;
	bought: number;
	held: number;
	refusedOrFailed: number;
	written: number;
	spentNgn: number;
	/** The first rows not bought, of every page: the pages' own executions are not saved. */
	failures: Array<{ id: number; email: string; error: string }>;
}

/** Totals so far after each page, in page order. */
export function totalsAfterEachPage(ex: Execution): CampaignTotals[] {
	return ex.data.resultData.runData[TOTALS].map(
		(run) => run.data!.main![0]![0].json as unknown as CampaignTotals,
	);
}

/** What Totals so far says after the last page: the execution's totals. */
export function campaignTotals(ex: Execution): CampaignTotals {
	return totalsAfterEachPage(ex).at(-1)!;
}
