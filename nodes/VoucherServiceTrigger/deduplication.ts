import {
	sleep,
	type ICheckProcessedOptions,
	type IDataObject,
	type IExecuteFunctions,
} from 'n8n-workflow';

/*
 * The service retries for about 93 minutes (3, 6, 12, 24 and 48 minutes apart); a day
 * leaves room for late duplicates and clock drift while keeping the memory small.
 */
export const RETENTION_MS = 24 * 60 * 60 * 1000;
export const MAX_ENTRIES = 5000;

type Entry = [key: string, seenAt: number];

function liveEntries(store: IDataObject, now: number): Entry[] {
	const seen = store.seen;
	if (typeof seen !== 'object' || seen === null || Array.isArray(seen)) return [];
	return Object.entries(seen).filter(
		(entry): entry is Entry => typeof entry[1] === 'number' && now - entry[1] < RETENTION_MS,
	);
}

export function hasSeen(store: IDataObject, key: string, now: number): boolean {
	const seenAt = (store.seen as IDataObject | undefined)?.[key];
	return typeof seenAt === 'number' && now - seenAt < RETENTION_MS;
}

/**
 * Records `key` and tells whether it is new. The whole map is assigned back to `store` so
 * n8n's change tracking on workflow static data sees the write and persists it.
 */
export function recordFirstSighting(store: IDataObject, key: string, now: number): boolean {
	if (hasSeen(store, key, now)) return false;
	// Keys are appended as they are seen, so insertion order is age order: the cap drops the oldest.
	const live = liveEntries(store, now);
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
 * this node's recent keys; n8n reads it, adds to it and writes it back without a lock, so
 * a writer that read the row just before us can overwrite our key a few milliseconds later.
 * Re-reading after that window and recording again when the key went missing closes it
 * for the key (see docs/trigger.md for the figures).
 */
const PROCESSED_OPTIONS: ICheckProcessedOptions = { mode: 'entries', maxEntries: MAX_ENTRIES };
export const VERIFY_AFTER_MS = [300, 1500];

type ProcessedStore = Pick<IExecuteFunctions['helpers'], 'checkProcessedAndRecord'>;

/*
 * The node's first key creates the row: concurrent first writers collide on its primary
 * key, and SQLite answers "busy" under bursts. Both pass on a second try, which reads
 * the row the winner wrote.
 */
const ATTEMPTS = 5;
const RETRY_AFTER_MS = 100;

async function recordKey(store: ProcessedStore, key: string): Promise<boolean> {
	for (let attempt = 1; ; attempt++) {
		try {
			const result = await store.checkProcessedAndRecord([key], 'node', PROCESSED_OPTIONS);
			return result.new.length > 0;
		} catch (error) {
			if (attempt >= ATTEMPTS) throw error;
			await sleep(RETRY_AFTER_MS * attempt);
		}
	}
}

/** True when this execution is the first to record `key`; false for a duplicate. */
export async function claimInExecution(store: ProcessedStore, key: string): Promise<boolean> {
	if (!(await recordKey(store, key))) return false;
	for (const delayMs of VERIFY_AFTER_MS) {
		await sleep(delayMs);
		// Records the key again if a concurrent writer dropped it.
		await recordKey(store, key);
	}
	return true;
}
