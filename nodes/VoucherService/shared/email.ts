/*
 * A recipient's e-mail address, checked as mail systems take it. The spec says only "a valid
 * e-mail format", so everything a mail system delivers on the internet is sent, and only what
 * cannot be such an address is refused: a row refused here fails alone, while one the service
 * refuses fails its whole order, up to Recipients per Order rows.
 *
 * Taken: RFC 5321's dot-atom before the @ (letters, digits and ! # $ % & ' * + - / = ? ^ _ ` { | } ~,
 * dots between them) and a domain name of letters, digits and hyphens with at least one dot,
 * its last part not all digits (xn-- punycode included).
 *
 * Refused by choice, though RFCs allow them: a quoted part before the @ ("john doe"@…), an IP
 * address in brackets after it, and characters outside ASCII (SMTPUTF8). The service does not
 * say it delivers them, most mail systems do not send to the first two, and each has
 * equivalent spellings ("john"@ is john@; bücher.de is xn--bcher-kva.de) that the service may
 * store in another form, so that a campaign run again would not find its own voucher and
 * buy it a second time. A domain without a dot (john@localhost) is no address on the internet.
 */

const ATEXT = /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~]+$/;
const DOMAIN_LABEL = /^[A-Za-z0-9-]+$/;
const MAX_LENGTH = 254;
const MAX_LOCAL_LENGTH = 64;
const MAX_LABEL_LENGTH = 63;

/** The first character of `text` that `allowed` refuses, quoted. */
function firstRefused(text: string, allowed: RegExp): string {
	return `"${[...text].find((char) => !allowed.test(char)) ?? ''}"`;
}

function localPartProblem(local: string): string | undefined {
	if (local.length > MAX_LOCAL_LENGTH)
		return `the part before the @ is longer than ${MAX_LOCAL_LENGTH} characters`;
	const atoms = local.split('.');
	if (atoms.some((atom) => atom === ''))
		return 'the part before the @ starts or ends with a dot, or has two dots in a row';
	const odd = atoms.find((atom) => !ATEXT.test(atom));
	if (odd !== undefined)
		return `the part before the @ holds ${firstRefused(odd, ATEXT)}, which an address cannot hold unquoted`;
	return undefined;
}

function domainProblem(domain: string): string | undefined {
	if (domain.startsWith('[')) return 'an IP address in brackets after the @ is not accepted';
	const labels = domain.split('.');
	if (labels.some((label) => label === ''))
		return 'the part after the @ starts or ends with a dot, or has two dots in a row';
	if (labels.length < 2) return 'the part after the @ has no dot, as in example.com';
	const odd = labels.find((label) => !DOMAIN_LABEL.test(label));
	if (odd !== undefined)
		return `the part after the @ holds ${firstRefused(odd, DOMAIN_LABEL)}, which a domain name cannot hold`;
	if (labels.some((label) => label.startsWith('-') || label.endsWith('-')))
		return 'a part of the domain starts or ends with a hyphen';
	if (labels.some((label) => label.length > MAX_LABEL_LENGTH))
		return `a part of the domain is longer than ${MAX_LABEL_LENGTH} characters`;
	if (/^\d+$/.test(labels[labels.length - 1]))
		return 'the domain ends in a number, as an IP address does';
	return undefined;
}

/** Why a trimmed, non-empty text cannot be a recipient's address; undefined when it can. */
export function emailProblem(address: string): string | undefined {
	// First: a quoted part may hold spaces and @, which would otherwise be named instead.
	if (address.startsWith('"')) return 'a quoted part before the @ is not accepted';
	if (/\s/.test(address)) return 'it holds a space';
	if (/[\u0080-\uffff]/.test(address))
		return 'it holds a character outside ASCII, which is not accepted (write an international domain in its xn-- form)';
	if (address.length > MAX_LENGTH) return `it is longer than ${MAX_LENGTH} characters`;
	const at = address.lastIndexOf('@');
	if (at < 0) return 'it has no @';
	const local = address.slice(0, at);
	const domain = address.slice(at + 1);
	if (local.includes('@')) return 'it has more than one @';
	if (local === '') return 'nothing comes before the @';
	if (domain === '') return 'nothing comes after the @';
	return localPartProblem(local) ?? domainProblem(domain);
}
