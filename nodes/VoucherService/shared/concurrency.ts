/**
 * Runs task(0..count-1) with at most `limit` in flight and returns results in index order.
 * After the first failure no new task starts; the ones in flight finish, then it throws.
 */
export async function mapWithConcurrency<T>(
	count: number,
	limit: number,
	task: (index: number) => Promise<T>,
): Promise<T[]> {
	const results = new Array<T>(count);
	let next = 0;
	let failure: { error: unknown } | undefined;
	const worker = async () => {
		while (next < count && !failure) {
			const index = next++;
			try {
				results[index] = await task(index);
			} catch (error) {
				failure ??= { error };
			}
		}
	};
	const workers = Math.max(1, Math.min(limit, count));
	await Promise.all(Array.from({ length: workers }, worker));
	if (failure) throw failure.error;
	return results;
}
