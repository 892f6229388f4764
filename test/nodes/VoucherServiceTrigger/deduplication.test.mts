import { describe, expect, it } from 'vitest';

import {
	MAX_ENTRIES,
	IN_FLIGHT_MS,
	RETENTION_MS,
	RETRY_WINDOW_MS,
	hasSeen,
	recordFirstSighting,
} from '../../../nodes/VoucherServiceTrigger/deduplication';
import { deduplicationKey } from '../../../nodes/VoucherServiceTrigger/events';

const voucher = (serialNumber: unknown, balance: unknown) => ({
	type: 'VOUCHER_UPDATED',
	data: { serialNumber, balance, orderNumber: 'ORD-1' },
});

describe('recordFirstSighting', () => {
	it('sees a key again within the retention time, and forgets it after', () => {
		const store = {};
		expect(recordFirstSighting(store, 'k', 0)).toBe(true);
		expect(recordFirstSighting(store, 'k', RETENTION_MS - 1)).toBe(false);
		expect(hasSeen(store, 'k', RETENTION_MS)).toBe(false);
		expect(recordFirstSighting(store, 'k', RETENTION_MS)).toBe(true);
	});

	it('stays bounded, dropping the oldest keys first', () => {
		const store: { seen?: Record<string, number> } = {};
		for (let i = 0; i <= MAX_ENTRIES; i++) recordFirstSighting(store, `k${i}`, i);
		expect(Object.keys(store.seen ?? {})).toHaveLength(MAX_ENTRIES);
		expect(hasSeen(store, 'k0', MAX_ENTRIES)).toBe(false);
		expect(hasSeen(store, `k${MAX_ENTRIES}`, MAX_ENTRIES)).toBe(true);
	});

	it("holds keys for the service's retry window with a margin, and at most a few dozen kilobytes", () => {
		expect(RETRY_WINDOW_MS).toBe(45 * 60 * 1000); // 3 + 6 + 12 + 24 minutes
		expect(RETENTION_MS).toBeGreaterThan(RETRY_WINDOW_MS);
		expect(RETENTION_MS).toBeLessThanOrEqual(2 * RETRY_WINDOW_MS);
		const store: { seen?: Record<string, number> } = {};
		const now = Date.UTC(2026, 10, 25);
		for (let i = 0; i < 5000; i++) {
			const key = deduplicationKey(voucher(7000000000000 + i, 1_000_000 + i))!;
			recordFirstSighting(store, key, now + i);
		}
		expect(Object.keys(store.seen ?? {})).toHaveLength(MAX_ENTRIES);
		expect(JSON.stringify(store).length).toBeLessThan(40_000);
	});

	it('ignores a corrupted memory instead of failing', () => {
		expect(recordFirstSighting({ seen: 'garbage' }, 'k', 0)).toBe(true);
		expect(recordFirstSighting({ seen: { k: 'yesterday' } }, 'k', 0)).toBe(true);
	});
});

describe('process memory', () => {
	it("holds a key only for the in-flight window, so the service's first retry (3 minutes) is never taken for a copy", () => {
		const store = {};
		expect(recordFirstSighting(store, 'k', 0, IN_FLIGHT_MS)).toBe(true);
		expect(recordFirstSighting(store, 'k', IN_FLIGHT_MS - 1, IN_FLIGHT_MS)).toBe(false);
		expect(IN_FLIGHT_MS).toBeLessThan(3 * 60 * 1000);
		expect(recordFirstSighting(store, 'k', 3 * 60 * 1000, IN_FLIGHT_MS)).toBe(true);
	});
});
