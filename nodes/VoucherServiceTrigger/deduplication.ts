import {
	NodeOperationError,
	sleep,
	type ICheckProcessedOptions,
	type IDataObject,
	type IExecuteFunctions,
	type INode,
} from 'n8n-workflow';

import { UNSETTLED_ELECTION } from './unsettledElection';

/*
 * The service's retry schedule as we read the spec's "maximum 5 attempts" (docs/api.md): 5 in
 * all, 3, 6, 12 and 24 minutes apart, so its last retry comes about 45 minutes after the first
 * delivery. Were it 5 retries after the first, the last would come at about 93 minutes, past
 * static data's window; processed_data, which has no time limit, still catches that copy.
 */
const RETRY_DELAYS_MINUTES = [3, 6, 12, 24];
export const RETRY_WINDOW_MS = RETRY_DELAYS_MINUTES.reduce((sum, m) => sum + m, 0) * 60 * 1000;

/*
 * Static data is only a filter in front of processed_data, and n8n reads and parses all of
 * it on every production request and writes it back after each accepted event, so it
 * holds no more than the retry window needs: 15 minutes of margin for deliveries that are
 * slow to arrive and for clock drift between n8n's processes, and a size bound that keeps
 * that read a few dozen kilobytes however busy the workflow is. A copy beyond either
 * bound is still stopped inside its execution by processed_data (claimInExecution).
 */
export const RETENTION_MS = RETRY_WINDOW_MS + 15 * 60 * 1000;
export const MAX_ENTRIES = 500;

/** Events processed_data remembers per trigger node: the durable record of what ran. */
export const PROCESSED_EVENTS = 5000;

/*
 * How long this process's memory holds a key. It only has to cover copies that arrive at
 * the same moment, before any execution has saved the key. It must end well before the
 * service's first retry (3 minutes): if n8n fails to start the execution after webhook()
 * accepted a delivery, it answers 5xx, and that retry must run, not be taken for a copy.
 */
export const IN_FLIGHT_MS = 60 * 1000;

type Entry = [key: string, seenAt: number];

function liveEntries(store: IDataObject, now: number, retentionMs: number): Entry[] {
	const seen = store.seen;
	if (typeof seen !== 'object' || seen === null || Array.isArray(seen)) return [];
	return Object.entries(seen).filter(
		(entry): entry is Entry => typeof entry[1] === 'number' && now - entry[1] < retentionMs,
	);
}

export function hasSeen(
	store: IDataObject,
	key: string,
	now: number,
	retentionMs = RETENTION_MS,
): boolean {
	const seenAt = (store.seen as IDataObject | undefined)?.[key];
	return typeof seenAt === 'number' && now - seenAt < retentionMs;
}

/**
 * Records `key` and tells whether it is new. The whole map is assigned back to `store` so
 * n8n's change tracking on workflow static data sees the write and persists it.
 */
export function recordFirstSighting(
	store: IDataObject,
	key: string,
	now: number,
	retentionMs = RETENTION_MS,
): boolean {
	if (hasSeen(store, key, now, retentionMs)) return false;
	// Keys are appended as they are seen, so insertion order is age order: the cap drops the oldest.
	const live = liveEntries(store, now, retentionMs);
	live.push([key, now]);
	store.seen = Object.fromEntries(live.slice(-MAX_ENTRIES));
	return true;
}

const processMemory = new Map<string, IDataObject>();

/**
 * Copies the service sends at the same moment all reach n8n before any static data is
 * saved, so only memory shared by the requests on this process can tell them apart.
 */
export function processStore(scope: string): IDataObject {
	let store = processMemory.get(scope);
	if (store === undefined) {
		store = {};
		processMemory.set(scope, store);
	}
	return store;
}

/*
 * n8n's own deduplication store (the processed_data table that Remove Duplicates uses),
 * reachable only from execute(), so on the worker that runs the execution. One row holds
 * this node's recorded values; n8n reads it, adds to it and writes the whole list back
 * without a lock, so the last writer wins and concurrent writers drop each other's values.
 *
 * That is enough to elect one execution per key. Each claimant writes the key together
 * with a token naming its execution, waits until writes that started before it have
 * landed, then looks again:
 * - its token is there: its write is the one the list descends from, so it won;
 * - the key is there but its token is not: a rival's claim for the same key replaced it;
 * - both are gone: an unrelated writer dropped them (they were just written again), so
 *   it waits and looks once more.
 * Every later write copies what it read, so the list keeps exactly one claimant's token
 * for the key, and every claimant that looks sees the same one. docs/trigger.md has the
 * assumption this rests on (a read and its write less than SETTLE_MS apart) and figures.
 */
const PROCESSED_OPTIONS: ICheckProcessedOptions = {
	mode: 'entries',
	maxEntries: 2 * PROCESSED_EVENTS,
};
export const SETTLE_MS = 1000;
const SETTLE_ROUNDS = 5;

/*
 * The node's first value creates the row: concurrent first writers collide on its primary
 * key, and SQLite answers "busy" under bursts. Both pass on a later try.
 */
const ATTEMPTS = 5;
const RETRY_AFTER_MS = 100;

type ProcessedStore = Pick<
	IExecuteFunctions['helpers'],
	'checkProcessedAndRecord' | 'removeProcessed'
>;

/*
 * One read-and-write of the list at a time in this process. Without it, two executions in
 * the same process can interleave theirs, and a write slowed by the database (SQLite
 * waiting for its lock under a burst) can land after a rival's check and drop a value that
 * was already confirmed, so the event would run again after a restart. With it, only
 * writers in other processes (queue-mode workers) can still interleave.
 */
let lastInProcess: Promise<unknown> = Promise.resolve();

function oneAtATime<T>(write: () => Promise<T>): Promise<T> {
	const turn = lastInProcess.then(write, write);
	lastInProcess = turn.catch(() => undefined);
	return turn;
}

/** `giveUp` answers for the write once ATTEMPTS tries have failed. */
async function withRetries<T>(write: () => Promise<T>, giveUp: (error: unknown) => T): Promise<T> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await oneAtATime(write);
		} catch (error) {
			if (attempt >= ATTEMPTS) return giveUp(error);
			await sleep(RETRY_AFTER_MS * attempt);
		}
	}
}

async function record(store: ProcessedStore, values: string[], node: INode): Promise<Set<string>> {
	const result = await withRetries(
		() => store.checkProcessedAndRecord(values, 'node', PROCESSED_OPTIONS),
		(error) => {
			throw new NodeOperationError(node, error as Error, {
				message: "Could not check the event against n8n's deduplication table",
				description:
					'n8n already answered the service, so it will not send this event again. Retry this execution from the executions list once the database answers again.',
			});
		},
	);
	return new Set(result.processed.map(String));
}

/*
 * A copy's token would otherwise stay in the list, and the list drops its oldest values
 * first: enough copies would push the event's own key out, and the next copy would run.
 * The removal is one more read-and-write, which the election tolerates like any writer's.
 * If it fails, the token stays and takes one place: failing the execution instead would
 * invite a retry, and a retry runs the event without the election.
 */
async function withdraw(store: ProcessedStore, token: string): Promise<'duplicate'> {
	await withRetries(
		() => store.removeProcessed([token], 'node', PROCESSED_OPTIONS),
		() => undefined,
	);
	return 'duplicate';
}

export type Claim = 'run' | 'duplicate' | 'unsettled';

/**
 * 'run' when this execution is the one that handles `key`, 'duplicate' when another one
 * does. 'unsettled' when the list never settled: a rival may have won without this
 * execution seeing it, so running here could run the event twice.
 */
export async function claimInExecution(
	store: ProcessedStore,
	node: INode,
	key: string,
	executionId: string,
): Promise<Claim> {
	const token = JSON.stringify([key, executionId]);
	if ((await record(store, [key, token], node)).has(key)) return await withdraw(store, token);
	for (let round = 0; round < SETTLE_ROUNDS; round++) {
		await sleep(SETTLE_MS);
		const present = await record(store, [key, token], node);
		if (present.has(token)) return 'run';
		if (present.has(key)) return await withdraw(store, token);
	}
	return 'unsettled';
}

/*
 * The execution fails where the person running the workflow sees it, which a second run
 * would not: a lost event is visible and retried by hand, a double run is not undone.
 */
export function unsettledError(node: INode): NodeOperationError {
	return new NodeOperationError(node, UNSETTLED_ELECTION, {
		description: `Other writers to n8n's deduplication table kept dropping this event's claim for ${SETTLE_ROUNDS} seconds, so this execution stopped rather than risk running the event a second time. Look for another execution with the same deduplicationKey; retry this one from the executions list only if there is none.`,
	});
}
