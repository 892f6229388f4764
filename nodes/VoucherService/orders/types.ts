import type { IDataObject } from 'n8n-workflow';

import type { DownloadOrderBody, Recipient, RecipientOrderBody } from '../shared/validation';

/*
 * The shapes orders/ passes along: operations read and validate parameters into them,
 * core/ and campaign/ act on them, and output.ts makes the output from them. Plain data:
 * nothing below the operations needs n8n's execution context.
 */

/**
 * Everything a create sends, its amount in whole kobo until it is sent. Reference, amount and
 * voucher count are read from the body, never carried beside it, so what is checked is always
 * what is sent.
 */
export type OrderRequest =
	| { kind: 'download'; body: DownloadOrderBody }
	| { kind: 'recipients'; body: RecipientOrderBody };

/** An order request and the input item it answers to (for error messages). */
export interface PlannedOrder {
	itemIndex: number;
	request: OrderRequest;
}

export type IfReferenceExists = 'returnExisting' | 'fail';

/** The create options of one item, checked. */
export interface CreateSettings {
	dryRun: boolean;
	ifReferenceExists: IfReferenceExists;
	/** The tightest spending limit of node and credential; undefined: none. */
	limitKobo: number | undefined;
	waitForCompletion: boolean;
	waitTimeoutMs: number;
}

/**
 * The checks on a whole run, read from item 0 (one setting per run): Maximum Total per Run
 * and Check Wallet Balance First.
 */
export interface RunSpending {
	/** Read the NGN wallet before the first create and buy nothing if it does not cover the run. */
	checkWallet: boolean;
	/** Maximum Total per Run in kobo; undefined: none. */
	runLimitKobo: number | undefined;
}

/** How an order becomes output items. */
export interface OrderOutput {
	mode: 'order' | 'voucher';
	/** Run as an AI agent's tool without the user's consent: no codes or PINs in the output. */
	withholdCodes: boolean;
}

/** One item of Create, or of Create for Recipients → Enter Below, read and validated. */
export interface ItemOrder extends PlannedOrder {
	settings: CreateSettings;
	output: OrderOutput;
}

export interface Order extends IDataObject {
	orderNumber: string;
	reference: string;
	status: string;
	vouchers?: IDataObject[] | null;
}

/** An order plus what the node learned while getting it. */
export interface OrderResult {
	order: Order;
	/** The reference was already known to the service: this run did not (knowingly) create it. */
	alreadyExisted?: boolean;
	/** "Wait for completion" gave up while the order was still PROCESSING. */
	waitTimedOut?: boolean;
	/** "Wait for completion" could not read the order it waits for: the error's message. */
	waitFailed?: string;
	/** Found under the reference, but listed no vouchers to compare with the request. */
	unverified?: boolean;
	/** Found by looking the reference up after a create whose answer was lost or refused. */
	foundByLookup?: boolean;
}

/** One valid row of a sheet: one recipient of one campaign. */
export interface CampaignRow {
	itemIndex: number;
	/** The campaign's base reference; its orders are `<base>-1`, `<base>-2`, … */
	base: string;
	recipient: Recipient;
	/** Who the row is, as matched against the vouchers of earlier orders. */
	recipientKey: string;
	amountKobo: number;
	/** The fields a new order for this row sends, besides its reference and recipients. */
	orderFields: Omit<RecipientOrderBody, 'reference' | 'recipients' | 'amountKobo'>;
	/** Rows with the same key may share a new order. */
	orderKey: string;
	/** The row's own ID (whole-number digits) when the campaign is fed in pages; see pagedCampaign.ts. */
	rowId?: string;
}

/**
 * What a campaign fed by Row ID does with a block's orders under 0.3.0's names
 * (orders/campaign/rowBlocks.ts): stop the block, count them, or read past them.
 */
export type OldBlockNames = 'refuse' | 'thisCampaign' | 'ignore';

/** The campaign settings of a run, read from item 0 (one setting per run). */
export interface CampaignSettings extends CreateSettings, RunSpending {
	recipientsPerOrder: number;
	oldBlockNames: OldBlockNames;
}

/** An existing order of a campaign, its number in the campaign's (or block's) numbering and the Reference it was read under. */
export interface CampaignOrder {
	number: number;
	reference: string;
	order: Order;
	/** Read under 0.3.0's name: its block of 100, whose rows alone it can hold (orders/campaign/rowBlocks.ts). */
	oldBlock?: string;
}
