/** Every timer the sandbox starts goes through here, so reset() and close() can cancel them all. */
export interface Scheduler {
	/** Runs `task` in `ms`; the function returned cancels it. */
	after(ms: number, task: () => void): () => void;
	cancelAll(): void;
}

export function createScheduler(): Scheduler {
	const pending = new Set<ReturnType<typeof setTimeout>>();
	return {
		after(ms, task) {
			const timer = setTimeout(() => {
				pending.delete(timer);
				task();
			}, ms);
			pending.add(timer);
			return () => {
				clearTimeout(timer);
				pending.delete(timer);
			};
		},
		cancelAll() {
			for (const timer of pending) clearTimeout(timer);
			pending.clear();
		},
	};
}
