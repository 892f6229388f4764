// The peak RSS of a process over a window, from /proc: the kernel's peak counter (VmHWM)
// reset at the start through /proc/<pid>/clear_refs, so that start-up does not count, and
// VmRSS sampled every 50 ms as a cross-check (and as the figure where the reset is refused).
import { readFileSync, writeFileSync } from 'node:fs';

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
	const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
	if (!m) throw new Error(`no ${field} for pid ${pid}`);
	return Number(m[1]);
}

export const mib = (kb: number) => kb / 1024;

/** The process's RSS now. */
export const rssKb = (pid: number) => statusKb(pid, 'VmRSS');

/** A process that has exited (a zombie until reaped) has no VmRSS. */
function alive(pid: number): boolean {
	try {
		return /^VmRSS:/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
	} catch {
		return false;
	}
}

export interface PeakRss {
	/** VmRSS when the window opened. */
	idleKb: number;
	peakKb: number;
	hwmKb: number;
	sampledKb: number;
	/** Whether the peak counter was reset; if not, the peak is the samples' alone. */
	hwmReset: boolean;
}

/** Opens the window now; `close()` ends it, undefined if the process exited meanwhile. */
export function watchPeakRss(pid: number): { close(): PeakRss | undefined } {
	const idleKb = statusKb(pid, 'VmRSS');
	let hwmReset = true;
	try {
		writeFileSync(`/proc/${pid}/clear_refs`, '5');
	} catch {
		hwmReset = false; // then VmHWM still holds the start-up peak; the samples decide
	}
	let sampledKb = idleKb;
	const timer = setInterval(() => alive(pid) && (sampledKb = Math.max(sampledKb, statusKb(pid, 'VmRSS'))), 50);
	return {
		close() {
			clearInterval(timer);
			if (!alive(pid)) return undefined;
			const hwmKb = statusKb(pid, 'VmHWM');
			return { idleKb, hwmKb, sampledKb, hwmReset, peakKb: hwmReset ? Math.max(hwmKb, sampledKb) : sampledKb };
		},
	};
}
