/**
 * The field-reference fast path of shared/parameters.ts against n8n's own evaluation.
 *
 * Each case runs Order → Create twice inside real n8n-core, once with its four fields mapped as
 * written (`={{ $json.… }}`, which the fast path may read from the item) and once with each of
 * those expressions wrapped in parentheses (`={{ ($json.…) }}`, the same value, which the fast
 * path never takes, so n8n evaluates it). Outputs, errors and the request bodies the sandbox
 * received must be the same. A proxy around the execution context counts getNodeParameter calls,
 * so each case also proves which way the first run took. Both of n8n 2.41's expression engines
 * run every case: `vm` (the default, isolated-vm) and `legacy`.
 */
import {
	Expression,
	NodeConnectionTypes,
	type IDataObject,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeParameters,
	type INodeType,
	type NodeParameterValueType,
} from 'n8n-workflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { VoucherServiceApi } from '../../../../credentials/VoucherServiceApi.credentials';
import { ensureN8nRuntime } from '../../../../n8n-core-runner/n8nRuntime.mts';
import {
	chain,
	disposeN8nRuntime,
	nodeCredentialsFor,
	packageNodeTypeName,
	runWorkflow,
	startNode,
	workflowNode,
} from '../../../../n8n-core-runner/runWorkflow.mts';
import {
	apiRequests,
	credentialFor,
	sandboxForThisFile,
	voucherNode,
	voucherToolNode,
	withParameterReads,
} from '../voucherNodeRunner.mts';

const sandbox = await sandboxForThisFile();
afterAll(disposeN8nRuntime);

/** The four fields a sheet-driven flow maps. */
const FIELDS = ['reference', 'productCode', 'amount', 'quantity'] as const;
type Field = (typeof FIELDS)[number];

/**
 * Emits the rows of its run as they are, not through JSON (unlike the shared Items feeder),
 * so values JSON cannot carry (-0, NaN, Infinity, a Date) reach the node under test.
 */
const ROWS_NODE_TYPE = 'n8n-test-feeders.rows';
const rowsOfRun = new Map<string, IDataObject[]>();
class FeederRows implements INodeType {
	description: INodeType['description'] = {
		displayName: 'Rows (test)',
		name: ROWS_NODE_TYPE,
		group: ['transform'],
		version: 1,
		description: 'Emits the rows a test put under its run id',
		defaults: { name: 'Rows' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Run', name: 'run', type: 'string', default: '' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const rows = rowsOfRun.get(this.getNodeParameter('run', 0) as string) ?? [];
		return [rows.map((json) => ({ json, pairedItem: { item: 0 } }))];
	}
}

/** Fields whose values change from run to run (codes, serials, dates), masked for comparison. */
const VOLATILE = new Set(['code', 'pin', 'serial', 'expiryDate', 'orderNumber', 'createdAt']);
function masked(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(masked);
	if (value === null || typeof value !== 'object') return value;
	return Object.fromEntries(
		Object.entries(value).map(([key, inner]) => [
			key,
			VOLATILE.has(key) ? '<masked>' : masked(inner),
		]),
	);
}

let runCounter = 0;
interface Outcome {
	/** The node's output items (On Error: Continue makes a failed item an error item), masked. */
	output: unknown;
	/** The execution's error, if the node stopped it. */
	error: unknown;
	/** The bodies of the orders the sandbox received, in a stable order. */
	bodies: unknown[];
	/** How often getNodeParameter was asked for each mapped field. */
	evaluated: Record<Field, number>;
}

async function runCreate(
	parameters: INodeParameters,
	rows: IDataObject[],
	{ asTool = false } = {},
): Promise<Outcome> {
	sandbox.reset();
	const calls: string[] = [];
	const nodeType = withParameterReads(asTool ? voucherToolNode : voucherNode, calls);
	const typeName = packageNodeTypeName(nodeType);
	const run = `rows-${++runCounter}`;
	rowsOfRun.set(run, rows);
	const start = startNode();
	const feeder = workflowNode('Rows', ROWS_NODE_TYPE, { run });
	const node = workflowNode(
		'Voucher',
		typeName,
		{ resource: 'order', operation: 'create', ...parameters },
		{ credentials: nodeCredentialsFor(['voucherServiceApi']), continueOnFail: true },
	);
	const result = await runWorkflow({
		nodeTypes: { [typeName]: nodeType, [ROWS_NODE_TYPE]: new FeederRows() },
		credentialTypes: [new VoucherServiceApi()],
		credentials: { voucherServiceApi: credentialFor(sandbox) },
		nodes: [start, feeder, node],
		connections: chain(start.name, feeder.name, node.name),
	});
	rowsOfRun.delete(run);
	const output = result.error ? [] : result.outputOf(node.name).map((item) => item.json);
	const bodies = apiRequests(sandbox, 'POST')
		.map((entry) => JSON.stringify(entry.body))
		.sort();
	const evaluated = Object.fromEntries(
		FIELDS.map((field) => [field, calls.filter((name) => name === field).length]),
	) as Record<Field, number>;
	const error = result.error && {
		name: result.error.name,
		message: result.error.message,
		description: result.error.description,
	};
	return { output: masked(output), error, bodies, evaluated };
}

/** `={{ x }}` as `={{ (x) }}`: the same value, in a form the fast path leaves to n8n. */
function slowForm(parameter: NodeParameterValueType): NodeParameterValueType {
	if (typeof parameter !== 'string') return parameter;
	const match = /^=\{\{(.*)\}\}$/s.exec(parameter);
	// More than one {{ }} block: a template, which the fast path leaves to n8n as written.
	return match && !/\{\{|\}\}/.test(match[1]) ? `={{ (${match[1]}) }}` : parameter;
}

/** Runs both ways and asserts the same outcome; returns the fast run's outcome. */
async function bothWays(
	mapped: Partial<Record<Field, string>>,
	rows: IDataObject[],
	options: { asTool?: boolean } = {},
): Promise<Outcome> {
	const fixed: INodeParameters = { productCode: 'VCH-INSTANT', amount: 1000, quantity: 1 };
	const asWritten = { ...fixed, ...mapped };
	const forced = Object.fromEntries(Object.entries(asWritten).map(([k, v]) => [k, slowForm(v)]));
	const fast = await runCreate(asWritten, rows, options);
	const slow = await runCreate(forced, rows, options);
	expect(fast.error).toEqual(slow.error);
	expect(fast.output).toEqual(slow.output);
	expect(fast.bodies).toEqual(slow.bodies);
	// The parenthesised form is always evaluated by n8n, once per item.
	for (const field of Object.keys(mapped) as Field[]) {
		if (!slow.error) expect(slow.evaluated[field]).toBe(rows.length);
	}
	return fast;
}

/** All four fields mapped, each a plain field reference. */
const allFour = {
	reference: '={{ $json.reference }}',
	productCode: '={{ $json["product code"] }}',
	amount: "={{ $json['amount'] }}",
	quantity: '={{$json.quantity}}',
};

const fullRow = { reference: 'ref-1', 'product code': 'VCH-INSTANT', amount: 1500.5, quantity: 2 };

describe.each(['vm', 'legacy'] as const)(
	'field references read from the item, %s engine',
	(engine) => {
		beforeAll(async () => {
			await ensureN8nRuntime();
			Expression.setExpressionEngine(engine);
			expect(Expression.getActiveImplementation()).toBe(engine);
		});
		afterAll(() => Expression.setExpressionEngine('vm'));

		it('reads all four fields from the item: strings, numbers, keys with spaces, both quotes', async () => {
			const fast = await bothWays(allFour, [
				fullRow,
				{
					reference: '  ref with spaces  ',
					'product code': ' VCH-INSTANT',
					amount: 7,
					quantity: 1,
				},
			]);
			expect(fast.evaluated).toEqual({ reference: 0, productCode: 0, amount: 0, quantity: 0 });
			expect(fast.bodies).toContain(
				JSON.stringify({
					reference: 'ref-1',
					productCode: 'VCH-INSTANT',
					amount: 1500.5,
					quantity: 2,
				}),
			);
			expect(fast.bodies).toHaveLength(2);
		});

		it('gives numeric strings, booleans and an empty string as they are, like n8n', async () => {
			const fast = await bothWays(allFour, [
				{ reference: 'ref-str', 'product code': 'VCH-INSTANT', amount: '1500.50', quantity: '2' },
				{ reference: 'ref-bool', 'product code': 'VCH-INSTANT', amount: 100, quantity: true },
				{ reference: '', 'product code': 'VCH-INSTANT', amount: 100, quantity: 1 },
			]);
			expect(fast.evaluated).toEqual({ reference: 0, productCode: 0, amount: 0, quantity: 0 });
		});

		it('gives undefined for a missing field and null for a null one, like n8n', async () => {
			const fast = await bothWays(allFour, [
				{ 'product code': 'VCH-INSTANT', amount: 100, quantity: 1 },
				{ reference: 'ref-no-amount', 'product code': 'VCH-INSTANT', quantity: 1 },
				{ reference: null, 'product code': 'VCH-INSTANT', amount: null, quantity: null },
				{
					reference: 'ref-undefined',
					'product code': 'VCH-INSTANT',
					amount: undefined,
					quantity: 1,
				},
			]);
			expect(fast.evaluated).toEqual({ reference: 0, productCode: 0, amount: 0, quantity: 0 });
		});

		it('reads nested plain paths', async () => {
			const fast = await bothWays(
				{
					reference: '={{ $json.order.reference }}',
					productCode: '={{ $json.order["product"].code }}',
					amount: "={{ $json.order['unit price'] }}",
					quantity: '={{ $json.order.lines.count }}',
				},
				[
					{
						order: {
							reference: 'ref-nested',
							product: { code: 'VCH-INSTANT' },
							'unit price': 250,
							lines: { count: 3 },
						},
					},
				],
			);
			expect(fast.evaluated).toEqual({ reference: 0, productCode: 0, amount: 0, quantity: 0 });
			expect(fast.bodies).toEqual([
				JSON.stringify({
					reference: 'ref-nested',
					productCode: 'VCH-INSTANT',
					amount: 250,
					quantity: 3,
				}),
			]);
		});

		it('leaves a path through a missing, null or non-object step to n8n', async () => {
			const fast = await bothWays({ reference: '={{ $json.order.reference }}' }, [
				{ other: 1 },
				{ order: null },
				{ order: 'a string' },
				{ order: ['an', 'array'] },
			]);
			expect(fast.evaluated.reference).toBe(4);
		});

		it('gives a field holding an expression-looking string as text, never evaluated', async () => {
			const fast = await bothWays(allFour, [
				{
					reference: '={{ 1 + 1 }}',
					'product code': '{{ $json.amount }}',
					amount: 100,
					quantity: 1,
				},
			]);
			expect(fast.evaluated).toEqual({ reference: 0, productCode: 0, amount: 0, quantity: 0 });
			expect(JSON.parse(fast.bodies[0] as string)).toMatchObject({
				reference: '={{ 1 + 1 }}',
				productCode: '{{ $json.amount }}',
			});
		});

		it('gives -0, NaN and ±Infinity as they are, like n8n', async () => {
			const fast = await bothWays(allFour, [
				{ reference: 'ref-minus-zero', 'product code': 'VCH-INSTANT', amount: -0, quantity: 1 },
				{ reference: 'ref-nan', 'product code': 'VCH-INSTANT', amount: NaN, quantity: 1 },
				{
					reference: 'ref-infinity',
					'product code': 'VCH-INSTANT',
					amount: 100,
					quantity: Infinity,
				},
				{
					reference: 'ref-minus-infinity',
					'product code': 'VCH-INSTANT',
					amount: -Infinity,
					quantity: 1,
				},
			]);
			expect(fast.evaluated).toEqual({ reference: 0, productCode: 0, amount: 0, quantity: 0 });
		});

		it('leaves objects, arrays and dates to n8n, which the vm engine copies', async () => {
			const fast = await bothWays(
				{ reference: '={{ $json.reference }}', amount: '={{ $json.amount }}' },
				[
					{ reference: { nested: 'object' }, amount: 100 },
					{ reference: ['an', 'array'], amount: 100 },
					{ reference: 'ref-date', amount: new Date(0) as unknown as number },
				],
			);
			expect([fast.evaluated.reference, fast.evaluated.amount]).toEqual([2, 1]);
		});

		it('leaves inherited and unsafe names to n8n, even when the item has its own field', async () => {
			const rows = [{ toString: 'own', caller: 'own', valueOf: 'own', constructorName: 'own' }];
			for (const expression of [
				'={{ $json.toString }}',
				'={{ $json["valueOf"] }}',
				'={{ $json.caller }}',
				'={{ $json.constructorName }}',
				'={{ $json["a.constructor"] }}',
			]) {
				const fast = await bothWays({ reference: expression }, rows);
				expect(fast.evaluated.reference).toBeGreaterThan(0);
			}
		});

		it('leaves every other expression to n8n', async () => {
			const row = { reference: 'ref-other', amount: 100, list: ['ref-list'], quantity: 1 };
			for (const expression of [
				"={{ $('Rows').item.json.reference }}",
				'={{ $input.item.json.reference }}',
				'={{ $json.reference.trim() }}',
				'={{ $json.reference + "-x" }}',
				'=ref-{{ $json.reference }}',
				'={{ $json.reference }} ',
				'={{ $json.list[0] }}',
				'={{ $json?.reference }}',
				'={{ $json.reference }}{{ $json.amount }}',
				'={{ $json["reference"]\n}}',
			]) {
				const fast = await bothWays({ reference: expression }, [row]);
				expect(fast.evaluated.reference).toBe(1);
			}
		});

		it('leaves field references to n8n when the node runs as an AI agent tool', async () => {
			const fast = await bothWays(
				{ reference: '={{ $json.reference }}' },
				[{ reference: 'ref-tool' }],
				{ asTool: true },
			);
			expect(fast.evaluated.reference).toBe(1);
		});
	},
);

describe('what n8n checks a resolved value against', () => {
	it('no parameter of the node has a validateType, so n8n returns a resolved value unchanged', () => {
		// getNodeParameter converts or refuses a resolved value only for a property with a
		// validateType (validateValueAgainstSchema); the fast path relies on there being none.
		const withValidation = voucherNode.description.properties.filter(
			(property) => property.validateType !== undefined,
		);
		expect(withValidation.map((property) => property.name)).toEqual([]);
	});
});
