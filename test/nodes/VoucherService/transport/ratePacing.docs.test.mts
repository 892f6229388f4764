/**
 * The docs' short description of the pacing ("Pacing and retries" in docs/operations.md) is held
 * to the table's states: it names as many as there are, each by its name in italics and followed
 * by the words the code gives it. Change the words in one place, and this fails until the other
 * says the same.
 */
import { describe, expect, it } from 'vitest';

import { STATES, TRANSITIONS } from '../../../../nodes/VoucherService/transport/ratePacing';
import { PACE_LIFETIME_MS } from '../../../../nodes/VoucherService/transport/sharedPaces';
import { readRepoFile } from '../../../../scripts/repoFiles.mts';

const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

/** The section's text, with every run of whitespace as one space. */
function section(doc: string, title: string): string {
	const start = doc.indexOf(`\n## ${title}\n`);
	expect(start, `docs/operations.md has no "## ${title}"`).toBeGreaterThanOrEqual(0);
	const end = doc.indexOf('\n## ', start + 1);
	return doc.slice(start, end < 0 ? undefined : end).replace(/\s+/g, ' ');
}

describe('the docs describe the pacing as the table does', () => {
	const text = section(readRepoFile('docs/operations.md'), 'Pacing and retries');
	const named = Object.keys(STATES);

	it(`names the ${named.length} states`, () => {
		expect(text).toContain(`has ${WORDS[named.length]} states`);
		expect(text.match(/\*[a-z]+\*/g)).toEqual(named.map((name) => `*${name}*`));
	});

	it.each(Object.entries(STATES))('describes *%s* as "%s"', (name, words) => {
		expect(text).toContain(`*${name}* ${words}`);
	});

	it('says how long a pace is kept for the next run', () => {
		expect(text).toContain(`is kept ${PACE_LIFETIME_MS / 60_000} minutes for the next run`);
	});

	it('names no state the table does not reach', () => {
		const reached = new Set(
			TRANSITIONS.flatMap(([from, , , to]) => [...from.split('|'), ...to.split('|')]),
		);
		for (const name of named) expect(reached).toContain(name);
	});
});
