import { json } from './http.mts';
import type { Reply } from './http.mts';
import { balanceKobo, toNaira } from './ledger.mts';
import { OptionError } from './options.mts';
import { serialOf } from './orders.mts';
import type { SandboxOptions, SandboxState, Serial } from './types.mts';

export interface AdminContext {
	url: string;
	state: SandboxState;
	configure(patch: Partial<SandboxOptions>): void;
	reset(): void;
	emitVoucherUpdate(serial: Serial, newBalance: number): void;
}

const problem = (status: number, error: string): Reply => json(status, { error });

/**
 * Unauthenticated inspection and control for tests that run the sandbox in
 * another process. Not part of the service; never counted in the request log.
 */
export function routeAdmin(ctx: AdminContext, method: string, path: string, body: unknown): Reply {
	const { state } = ctx;
	const route = `${method} ${path}`;
	switch (route) {
		case 'GET /__sandbox/health':
			return json(200, { ok: true, url: ctx.url });
		case 'GET /__sandbox/requests':
			return json(200, state.requests);
		case 'GET /__sandbox/orders':
			return json(200, [...state.orders.values()]);
		case 'GET /__sandbox/ledger': {
			const kobo = balanceKobo(state.ledger);
			return json(200, {
				balances: [{ currency: 'NGN', balance: toNaira(kobo), balanceKobo: kobo }],
				entries: state.ledger,
			});
		}
		case 'GET /__sandbox/deliveries':
			return json(200, state.deliveries);
		case 'POST /__sandbox/reset':
			ctx.reset();
			return json(200, { ok: true });
		case 'POST /__sandbox/config':
			try {
				ctx.configure(body as Partial<SandboxOptions>);
				return json(200, { ok: true });
			} catch (err) {
				if (err instanceof OptionError) return problem(400, err.message);
				throw err;
			}
	}
	const balance = /^POST \/__sandbox\/vouchers\/(\d+)\/balance$/.exec(route);
	if (balance) {
		const newBalance = (body as { balance?: unknown } | null)?.balance;
		if (typeof newBalance !== 'number' || !Number.isFinite(newBalance) || newBalance < 0) {
			return problem(400, 'balance must be a number >= 0');
		}
		const serial = serialOf(balance[1]);
		if (![...state.vouchers.values()].some((v) => v.serial === serial))
			return problem(404, `unknown serial ${serial}`);
		ctx.emitVoucherUpdate(serial, newBalance);
		return json(200, { ok: true });
	}
	return problem(404, 'unknown admin endpoint');
}
