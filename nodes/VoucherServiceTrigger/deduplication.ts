import type { IDataObject } from 'n8n-workflow';

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
