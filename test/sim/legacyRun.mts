/**
 * A campaign begun on version 0.3.0, as its orders stand in the service: each block's rows
 * bought under 0.3.0's names `<base>-b<block of 100>-<m>` (today's are `-k<block of 1,000>-n<m>`), one order per product,
 * value and template, as 0.3.0 grouped them. Sent straight to the sandbox, for the simulator's
 * check that such a campaign finishes (model.mts, C1).
 */
import type { Sandbox } from '../../sandbox/server.mts';
import type { SentRequest } from './lightExecution.mts';
import { buyable, oldBlockOf } from './model.mts';
import type { ModelRow } from './model.mts';

export async function legacyRun(
	sbx: Sandbox,
	execution: string,
	base: string,
	rows: ModelRow[],
): Promise<SentRequest[]> {
	const orders = new Map<string, ModelRow[]>();
	for (const row of rows.filter((r) => buyable(r, false))) {
		const key = JSON.stringify([
			`b${oldBlockOf(row.rowId)}`,
			row.product,
			row.amount,
			row.template,
		]);
		orders.set(key, [...(orders.get(key) ?? []), row]);
	}
	const numbers = new Map<string, number>();
	const sent: SentRequest[] = [];
	const authorization = `Basic ${Buffer.from(`${sbx.keys.publicKey}:${sbx.keys.secretKey}`).toString('base64')}`;
	for (const [key, members] of orders) {
		const [scope, productCode, amount, templateId] = JSON.parse(key) as [
			string,
			string,
			number,
			number,
		];
		const number = (numbers.get(scope) ?? 0) + 1;
		numbers.set(scope, number);
		const body = {
			reference: `${base}-${scope}-${number}`,
			productCode,
			amount,
			templateId,
			recipients: members.map((row) => ({
				firstName: row.firstName.trim(),
				lastName: row.lastName.trim(),
				email: row.email.trim(),
			})),
		};
		const answer = await fetch(`${sbx.url}/v2/orders/recipients`, {
			method: 'POST',
			headers: {
				authorization,
				'content-type': 'application/json',
				'x-sandbox-client': execution,
			},
			body: JSON.stringify(body),
		});
		const path = '/v2/orders/recipients';
		const status = answer.status;
		sent.push({
			execution,
			method: 'POST',
			path,
			body,
			status,
			answer: await answer.json(),
			unsent: false,
		});
	}
	return sent;
}
