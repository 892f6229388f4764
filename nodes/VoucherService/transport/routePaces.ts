import { RatePacing } from './ratePacing';
import type { Outcome } from './pacingState';
import type { RateHints } from './rateHints';

/** A send as the paces counted it, to hand back with its answer. */
export interface RateTicket {
	readonly route: string;
	/** The pace that counted it; none for a probe, which no pace counts. */
	readonly pace?: RatePacing;
	readonly sequence: number;
	readonly sentAt: number;
}

/**
 * Which RatePacing paces each route (HTTP method) of the executions at once on one account
 * (sharedPaces.ts). A pace per route from the start learnt a limit shared by reads and creates
 * twice over (2 to 7 times the floor); one for both kept creates to about half their own limit
 * behind a looser one on reads (issue 41). So one pace serves every route until the answers show
 * two limits.
 *
 * While that pace holds requests back, a request of a route whose last answer was not a
 * refusal may go at once as a probe, beside one the pace sends (the same millisecond), of
 * another route. Sent together, the other refused and the probe admitted cannot be one limit:
 * the probe's route gets a pace of its own, fresh, and the others keep the learnt one. Both
 * refused is one limit: no route probes again while these paces last. A probe refused beside
 * one admitted may be either (the other took the last request of one limit, or the probe's own
 * limit is spent): its route probes no more. Both admitted tells nothing. Under one limit this
 * costs at most a refused probe per route. A probe is a request that would be sent anyway, only
 * sent earlier, which no pace counts: nothing is sent again.
 */
export class RoutePaces {
	private readonly shared: RatePacing;

	private readonly own = new Map<string, RatePacing>();

	/** Routes whose last answer, on the shared pace or as a probe, was a refusal. */
	private readonly beingRefused = new Set<string>();

	/** The shared pace's last send, while nothing else was sent after it. */
	private partner?: RateTicket;

	/** The probe out and the send it went beside, with their answers in so far. */
	private trial?: { partner: RateTicket; probe: RateTicket; answers: Map<RateTicket, Outcome> };

	/** Routes whose probe was refused. */
	private readonly probedOut = new Set<string>();

	private oneLimit = false;

	private probes = 0;

	private activeAt: number;

	constructor(private readonly now: () => number) {
		this.shared = new RatePacing(now);
		this.activeAt = now();
	}

	/** When a request was last sent or answered through these paces. */
	lastActiveAt(): number {
		return this.activeAt;
	}

	/**
	 * The executions on these paces ended: whether they are kept for the next (sharedPaces.ts).
	 * Only one pace for every route is: routes with limits of their own are told apart again, as
	 * the shared pace kept would be the other routes'.
	 */
	rest(): boolean {
		const kept = this.own.size === 0 && this.shared.rest();
		this.beingRefused.clear();
		this.partner = undefined;
		this.trial = undefined;
		return kept;
	}

	/** Whether any pace has been told how many requests its window still admits. */
	told(): boolean {
		return this.shared.told() || [...this.own.values()].some((pace) => pace.told());
	}

	/** The earliest time the next request of `route` may be sent. */
	nextSendAt(route: string): number {
		const own = this.own.get(route);
		if (own) return own.nextSendAt();
		const at = this.shared.nextSendAt();
		return at > this.now() && this.mayProbe(route) ? this.now() : at;
	}

	/** Records a send of `route`, now: a probe if the shared pace holds it back. */
	onSend(route: string): RateTicket {
		const sentAt = this.now();
		this.activeAt = sentAt;
		const pace = this.own.get(route) ?? this.shared;
		if (pace === this.shared && this.shared.nextSendAt() > sentAt && this.mayProbe(route)) {
			const probe = { route, sequence: ++this.probes, sentAt };
			this.trial = { partner: this.partner!, probe, answers: new Map() };
			this.partner = undefined;
			return probe;
		}
		const ticket = { route, pace, sequence: pace.onSend(), sentAt };
		this.partner = pace === this.shared ? ticket : undefined;
		return ticket;
	}

	onAnswer(ticket: RateTicket, outcome: Outcome, hints?: RateHints): void {
		const { pace, route } = ticket;
		this.activeAt = this.now();
		pace?.onAnswer(ticket.sequence, ticket.sentAt, outcome, hints);
		if (this.partner === ticket) this.partner = undefined;
		if (pace === this.shared || !pace) {
			if (outcome === 'refused') this.beingRefused.add(route);
			if (outcome === 'admitted') this.beingRefused.delete(route);
		}
		if (this.trial?.probe === ticket || this.trial?.partner === ticket) this.judge(ticket, outcome);
	}

	private mayProbe(route: string): boolean {
		return (
			!this.oneLimit &&
			!this.trial &&
			this.partner?.sentAt === this.now() &&
			this.partner.route !== route &&
			!this.beingRefused.has(route) &&
			!this.probedOut.has(route)
		);
	}

	private judge(ticket: RateTicket, outcome: Outcome): void {
		const { partner, probe, answers } = this.trial!;
		answers.set(ticket, outcome);
		if (answers.size < 2) return;
		this.trial = undefined;
		const beside = answers.get(partner);
		if (answers.get(probe) === 'refused') {
			this.probedOut.add(probe.route);
			this.oneLimit ||= beside === 'refused';
		} else if (answers.get(probe) === 'admitted' && beside === 'refused') {
			this.own.set(probe.route, new RatePacing(this.now));
		}
	}
}
