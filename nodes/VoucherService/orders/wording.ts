/** "1 voucher", "3 vouchers": a count with its noun, for hints and error messages. */
export const counted = (count: number, one: string, many = `${one}s`) =>
	`${count} ${count === 1 ? one : many}`;

const LISTED = 3;

/** The first few values and how many more, so a message stays readable for a long list. */
export function listed(values: string[]): string {
	const shown = values.slice(0, LISTED).join(', ');
	return values.length > LISTED ? `${shown} and ${values.length - LISTED} more` : shown;
}
