/*
 * Logged, with no event data, when the run-once election ends without a verdict. Kept
 * apart from deduplication.ts, which needs n8n-workflow, so the benchmarks can count it.
 */
export const UNSETTLED_ELECTION = 'Voucher Service Trigger: the run-once election did not settle';
