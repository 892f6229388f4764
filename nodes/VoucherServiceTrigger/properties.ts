import type { INodeProperties } from 'n8n-workflow';

import { TERMINAL_ORDER_STATUSES } from '../serviceProtocol/orderStatus';
import { ORDER_UPDATED, VOUCHER_UPDATED } from '../serviceProtocol/events';

const statusNames: Record<string, string> = {
	COMPLETED: 'Completed',
	PARTIALLY_COMPLETED: 'Partially Completed',
	CANCELED: 'Canceled',
	FAILED: 'Failed',
};

export const triggerProperties: INodeProperties[] = [
	{
		displayName:
			"The service has no API for registering webhooks. Copy this node's Production URL into the business dashboard's webhook settings, subscribe it to the events below, and put that URL's secret in the credential. The service requires an HTTPS URL in production.",
		name: 'registrationNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		default: [ORDER_UPDATED, VOUCHER_UPDATED],
		options: [
			{
				name: 'Order Updated',
				value: ORDER_UPDATED,
				description: 'An order reached a terminal status',
			},
			{
				name: 'Voucher Updated',
				value: VOUCHER_UPDATED,
				description: "A voucher's balance changed",
			},
		],
	},
	{
		displayName: 'Order Statuses',
		name: 'orderStatuses',
		type: 'multiOptions',
		default: [...TERMINAL_ORDER_STATUSES],
		description: 'Only order updates reaching one of these statuses start the workflow',
		options: TERMINAL_ORDER_STATUSES.map((status) => ({
			name: statusNames[status],
			value: status,
		})),
		displayOptions: { show: { events: [ORDER_UPDATED] } },
	},
	{
		displayName: 'Suppress Duplicates',
		name: 'suppressDuplicates',
		type: 'boolean',
		default: true,
		description:
			'Whether to run each event once, however often the service delivers it (same order number and status, or same voucher serial number and balance). A copy caught inside the execution stops there without items. Each item carries deduplicationKey for your own checks.',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Include Headers',
				name: 'includeHeaders',
				type: 'boolean',
				default: false,
				description: 'Whether to add the request headers to the output, for auditing',
			},
			{
				displayName: 'Include Raw Body',
				name: 'includeRawBody',
				type: 'boolean',
				default: false,
				description: 'Whether to add the exact signed body, as text, to the output, for auditing',
			},
			{
				displayName: 'Include Unknown Event Types',
				name: 'includeUnknownEvents',
				type: 'boolean',
				default: false,
				description:
					'Whether to start the workflow for signed events of a type this node does not know yet. They are never deduplicated. Off, they are answered with an error, so the service delivers them again.',
			},
		],
	},
];
