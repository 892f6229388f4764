import type { IDataObject, NodeExecutionHint } from 'n8n-workflow';

/** What became of one input item: its output items, or its failure. */
export type ItemOutcome =
	| { itemIndex: number; json: IDataObject[] }
	| { itemIndex: number; error: unknown };

/** Work that sends requests for some input items; if run() throws, all of them failed with that error. */
export interface ItemsJob {
	itemIndexes: number[];
	run(): Promise<ItemOutcome[]>;
}

/**
 * How an operation answers all input items. The router settles `settled` first (so a failure
 * found before anything is sent stops the node before any job starts), then runs `jobs` in
 * order under the node's concurrency, and turns every outcome into paired output or error items.
 */
export interface ItemPlan {
	settled: ItemOutcome[];
	jobs: ItemsJob[];
	/** Shown above the output; the router adds them where the n8n version can. */
	hints?: NodeExecutionHint[];
	/** A real run's summary, made once every job has run, from the outcomes of all items. */
	summarize?(outcomes: ItemOutcome[]): NodeExecutionHint;
}

/** Settings of the whole run, read once by the router. */
export interface RunSettings {
	/** Maximum Concurrency, checked: the most requests or order creates in flight. */
	concurrency: number;
	continueOnFail: boolean;
}
