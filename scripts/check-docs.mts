/**
 * `npm run check:docs`: the docs stay true to the code (issue 42).
 *
 * (a) Every message the nodes can throw to a user is in one of the docs' tables of messages
 * (docs/*.md tables with a "Message" column). The messages are read from the source with the
 * TypeScript compiler: what reaches the message of an error (operationError, NodeOperationError,
 * VoucherApiError, fieldError) or of a refused value (invalid, Invalid), followed through
 * constants, template literals, conditionals and the functions that pass a message on, so that
 * `rowFailure(node, row, ['not bought: …', …])` is read where it is written. Each `${…}` the
 * source cannot know becomes a wildcard, as do the docs' *italic* placeholders and `…`; a message
 * is documented when some table cell can read as it; one that is not fails the check.
 *
 * (b) Every Markdown table renders: its header and its separator have as many cells.
 */
import { dirname, join, relative } from 'node:path';

import ts from 'typescript';

import { fail, readRepoFile, repoFiles, ROOT } from './repoFiles.mts';

/** A wildcard: what the source cannot know, or a doc's placeholder. */
const ANY = '\u0000';
/** A parameter whose argument is still to be read at the function's calls. */
interface Hole {
	fn: ts.SignatureDeclaration;
	index: number;
	/** Where in the argument: tuple elements and object properties. */
	path: Array<string | number>;
}
type Part = string | Hole;
type Pattern = Part[];

/** Where a message goes in a sink's arguments. */
interface Target {
	index: number;
	path: Array<string | number>;
	/** The message a hole here ends up in: `null` stands for what the argument gives. */
	wrapper: Array<Part | null>;
}

export interface SourceMessage {
	/** The message with `…` for what the source cannot know. */
	text: string;
	/** file:line of the sink call that gives it. */
	at: string;
}

const MAX_PATTERNS = 256;
/** Letters and spaces that make a function's result a sentence of a message (see call). */
const SENTENCE = 24;

const literalLength = (pattern: Pattern) =>
	pattern.reduce(
		(sum, part) => sum + (typeof part === 'string' ? part.replace(ANY, '').length : 0),
		0,
	);
const MAX_DEPTH = 8;

const nameOf = (fn: ts.Node): string | undefined => {
	if ((ts.isFunctionDeclaration(fn) || ts.isMethodDeclaration(fn)) && fn.name)
		return fn.name.getText();
	if (
		(ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) &&
		ts.isVariableDeclaration(fn.parent)
	)
		return fn.parent.name.getText();
	if (ts.isConstructorDeclaration(fn) && fn.parent.name) return `new ${fn.parent.name.text}`;
	return undefined;
};

/** The sinks every message starts from, by the name of their declaration. */
const BASE_SINKS: Record<string, Array<Omit<Target, 'wrapper'>>> = {
	operationError: [{ index: 1, path: [] }],
	'new NodeOperationError': [
		{ index: 1, path: [] },
		{ index: 2, path: ['message'] },
	],
	'new VoucherApiError': [{ index: 1, path: ['message'] }],
	fieldError: [{ index: 3, path: [] }],
	invalid: [{ index: 0, path: [] }],
	'new Invalid': [{ index: 0, path: ['*', 'message'] }],
};

function product(lists: Pattern[][]): Pattern[] {
	let out: Pattern[] = [[]];
	for (const list of lists) {
		const next: Pattern[] = [];
		for (const a of out)
			for (const b of list) if (next.length < MAX_PATTERNS) next.push([...a, ...b]);
		out = next;
	}
	return out;
}

const union = (...lists: Pattern[][]): Pattern[] => lists.flat().slice(0, MAX_PATTERNS);

/** Reads messages from the program's sources under nodes/. */
class MessageReader {
	private readonly checker: ts.TypeChecker;

	private readonly sinks = new Map<ts.Node, Target[]>();

	private readonly seen = new Set<string>();

	constructor(program: ts.Program) {
		this.checker = program.getTypeChecker();
	}

	private declarationOf(
		call: ts.CallExpression | ts.NewExpression,
	): ts.SignatureDeclaration | undefined {
		const declaration = this.checker.getResolvedSignature(call)?.declaration;
		return declaration && !ts.isJSDocSignature(declaration) ? declaration : undefined;
	}

	private targetsOf(fn: ts.SignatureDeclaration): Target[] {
		const base = BASE_SINKS[nameOf(fn) ?? ''] ?? [];
		return [
			...base.map((target) => ({ ...target, wrapper: [null] })),
			...(this.sinks.get(fn) ?? []),
		];
	}

	/** Adds a sink: the function's parameter reaches a message; true when it is new. */
	private addSink(hole: Hole, wrapper: Array<Part | null>): boolean {
		const key = `${hole.fn.pos}:${hole.fn.getSourceFile().fileName}:${hole.index}:${hole.path.join('.')}:${JSON.stringify(wrapper.map((part) => (typeof part === 'object' && part !== null ? 'hole' : part)))}`;
		if (this.seen.has(key)) return false;
		this.seen.add(key);
		const targets = this.sinks.get(hole.fn) ?? [];
		targets.push({ index: hole.index, path: hole.path, wrapper });
		this.sinks.set(hole.fn, targets);
		return true;
	}

	/** The patterns an expression can give, with the parameters of `env` bound at a call. */
	private read(expr: ts.Expression, env: Map<ts.Node, ts.Expression>, depth: number): Pattern[] {
		return this.select(expr, [], env, depth);
	}

	/** The patterns at `path` in an expression (a tuple's element, an object's property). */
	private select(
		expr: ts.Expression,
		path: Array<string | number>,
		env: Map<ts.Node, ts.Expression>,
		depth: number,
	): Pattern[] {
		if (depth > MAX_DEPTH) return [[ANY]];
		if (
			ts.isParenthesizedExpression(expr) ||
			ts.isAsExpression(expr) ||
			ts.isNonNullExpression(expr) ||
			ts.isSatisfiesExpression(expr)
		)
			return this.select(expr.expression, path, env, depth);
		if (ts.isConditionalExpression(expr))
			return union(
				this.select(expr.whenTrue, path, env, depth),
				this.select(expr.whenFalse, path, env, depth),
			);
		if (ts.isIdentifier(expr)) return this.identifier(expr, path, env, depth);
		if (ts.isCallExpression(expr)) return this.call(expr, path, env, depth);
		const [step, ...rest] = path;
		if (step !== undefined) {
			if (ts.isArrayLiteralExpression(expr)) {
				const elements = step === '*' ? [...expr.elements] : [expr.elements[Number(step)]];
				return union(
					...elements
						.filter(
							(element): element is ts.Expression => !!element && !ts.isSpreadElement(element),
						)
						.map((element) => this.select(element, rest, env, depth)),
				);
			}
			if (ts.isObjectLiteralExpression(expr)) return this.property(expr, step, rest, env, depth);
			return [[ANY]];
		}
		if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return [[expr.text]];
		if (ts.isTemplateExpression(expr))
			return product([
				[[expr.head.text]],
				...expr.templateSpans.flatMap((span) => [
					this.read(span.expression, env, depth + 1),
					[[span.literal.text]],
				]),
			]);
		if (ts.isBinaryExpression(expr)) {
			const op = expr.operatorToken.kind;
			if (op === ts.SyntaxKind.PlusToken)
				return product([
					this.read(expr.left, env, depth + 1),
					this.read(expr.right, env, depth + 1),
				]);
			if (op === ts.SyntaxKind.QuestionQuestionToken || op === ts.SyntaxKind.BarBarToken)
				return union(this.read(expr.left, env, depth + 1), this.read(expr.right, env, depth + 1));
		}
		return [[ANY]];
	}

	private property(
		object: ts.ObjectLiteralExpression,
		name: string | number,
		rest: Array<string | number>,
		env: Map<ts.Node, ts.Expression>,
		depth: number,
	): Pattern[] {
		const found: Pattern[][] = [];
		for (const member of object.properties) {
			if (ts.isPropertyAssignment(member) && member.name.getText() === String(name))
				found.push(this.select(member.initializer, rest, env, depth));
			else if (ts.isShorthandPropertyAssignment(member) && member.name.text === String(name))
				found.push(this.select(member.name, rest, env, depth));
			else if (ts.isSpreadAssignment(member))
				found.push(this.select(member.expression, [name, ...rest], env, depth));
		}
		return found.length === 0 ? [] : union(...found);
	}

	private identifier(
		id: ts.Identifier,
		path: Array<string | number>,
		env: Map<ts.Node, ts.Expression>,
		depth: number,
	): Pattern[] {
		let symbol = this.checker.getSymbolAtLocation(id);
		if (symbol && symbol.flags & ts.SymbolFlags.Alias)
			symbol = this.checker.getAliasedSymbol(symbol);
		const declaration = symbol?.valueDeclaration ?? symbol?.declarations?.[0];
		if (!declaration) return [[ANY]];
		// A parameter, or a name bound from one: `[message, description]: [string, string]`.
		let node: ts.Node = declaration;
		const steps: Array<string | number> = [];
		while (ts.isBindingElement(node)) {
			const pattern = node.parent;
			steps.unshift(
				ts.isArrayBindingPattern(pattern)
					? pattern.elements.indexOf(node)
					: (node.propertyName ?? node.name).getText(),
			);
			node = pattern.parent;
		}
		if (ts.isParameter(node)) {
			const bound = env.get(node);
			if (bound) return this.select(bound, [...steps, ...path], new Map(), depth + 1);
			const fn = node.parent;
			return [[{ fn, index: fn.parameters.indexOf(node), path: [...steps, ...path] }]];
		}
		if (
			ts.isVariableDeclaration(node) &&
			node.initializer &&
			ts.getCombinedNodeFlags(node) & ts.NodeFlags.Const
		)
			return this.select(node.initializer, [...steps, ...path], env, depth + 1);
		return [[ANY]];
	}

	/** A call that gives a message: the function's returned expressions, its parameters bound. */
	private call(
		call: ts.CallExpression,
		path: Array<string | number>,
		env: Map<ts.Node, ts.Expression>,
		depth: number,
	): Pattern[] {
		const fn = this.declarationOf(call);
		if (!fn || !('body' in fn) || !fn.body || fn.getSourceFile().isDeclarationFile) return [[ANY]];
		const bound = new Map<ts.Node, ts.Expression>();
		fn.parameters.forEach((parameter, index) => {
			const arg = call.arguments[index];
			// An argument read in the caller's own scope: its parameters stay holes of the caller.
			if (arg) bound.set(parameter, this.closed(arg, env));
		});
		const returned = ts.isBlock(fn.body as ts.Node)
			? returnsOf(fn.body as ts.Block)
			: [fn.body as ts.Expression];
		const read = union(...returned.map((expr) => this.select(expr, path, bound, depth + 1)));
		// A function that writes a sentence is read; one that gives a word or two (a value's
		// kind, a duration) is a wildcard, like the value it describes.
		const sentence = read.some((pattern) => literalLength(pattern) >= SENTENCE);
		return sentence ? read : [[ANY]];
	}

	/** An argument as it reads in the callee: the caller's bound parameters are already read. */
	private closed(arg: ts.Expression, env: Map<ts.Node, ts.Expression>): ts.Expression {
		if (!ts.isIdentifier(arg)) return arg;
		const symbol = this.checker.getSymbolAtLocation(arg);
		const declaration = symbol?.valueDeclaration;
		return declaration && env.has(declaration) ? env.get(declaration)! : arg;
	}

	/** Reads every sink call of the file; true when it found a new sink. */
	scan(file: ts.SourceFile): boolean {
		let grew = false;
		const visit = (node: ts.Node) => {
			if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
				const fn = this.declarationOf(node);
				if (fn) for (const target of this.targetsOf(fn)) grew = this.take(node, target) || grew;
			}
			ts.forEachChild(node, visit);
		};
		visit(file);
		return grew;
	}

	private take(call: ts.CallExpression | ts.NewExpression, target: Target): boolean {
		const arg = call.arguments?.[target.index];
		if (!arg) return false;
		let grew = false;
		for (const given of this.select(arg, target.path, new Map(), 0)) {
			const message = target.wrapper.flatMap((part) => (part === null ? given : [part]));
			const holes = message.filter((part): part is Hole => typeof part === 'object');
			for (const hole of holes)
				grew =
					this.addSink(
						hole,
						message.map((part) => (part === hole ? null : typeof part === 'object' ? ANY : part)),
					) || grew;
			const { line } = call.getSourceFile().getLineAndCharacterOfPosition(call.getStart());
			const at = `${relative(ROOT, call.getSourceFile().fileName)}:${line + 1}`;
			const text = message.map((part) => (typeof part === 'object' ? ANY : part)).join('');
			this.record(text, at);
		}
		return grew;
	}

	private record(raw: string, at: string): void {
		const text = readable(raw);
		// Only what a message says itself: a bare wildcard passes on another's message.
		if ((text.replace(/…/g, '').match(/[A-Za-z]/g) ?? []).length < 4) return;
		if (!this.found.some((message) => message.text === text && message.at === at))
			this.found.push({ text, at });
	}

	private readonly found: SourceMessage[] = [];

	/**
	 * The messages read, but those that others are instances of: a function that passes a
	 * message on reads as `… is required` or `not bought: …`, and its callers' messages say
	 * what it passes (`Reference is required`, `not bought: order … failed: …`).
	 */
	messages(): SourceMessage[] {
		const hasInstance = (general: string) =>
			this.found.some(({ text }) => text !== general && globRegExp(general).test(text));
		return this.found.filter(({ text }) => !text.includes('…') || !hasInstance(text));
	}
}

/** A pattern as a regular expression: `…` matches anything. */
const globRegExp = (pattern: string) =>
	new RegExp(
		`^${pattern
			.split('…')
			.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
			.join('[^]*')}$`,
	);

function returnsOf(block: ts.Block): ts.Expression[] {
	const found: ts.Expression[] = [];
	const visit = (node: ts.Node) => {
		if (ts.isFunctionLike(node)) return;
		if (ts.isReturnStatement(node) && node.expression) found.push(node.expression);
		ts.forEachChild(node, visit);
	};
	ts.forEachChild(block, visit);
	return found;
}

/**
 * A message as a reader sees it: wildcards as `…`, one space between words, without the
 * "Item n: " and `invalid "field": ` every item's and every field's message starts with.
 */
function readable(raw: string): string {
	return raw
		.replace(/\u0000+/g, '…')
		.replace(/\s+/g, ' ')
		.trim()
		.replace(/^Item (…|\d+): /, '')
		.replace(/^invalid ("[^"]*": |…$)/, '');
}

/**
 * The messages of the package's nodes. `extraSources` adds files (paths relative to the
 * repository) as if they were there: the test plants a message so.
 */
export function sourceMessages(extraSources: Record<string, string> = {}): SourceMessage[] {
	const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
	const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
	const extra = new Map(
		Object.entries(extraSources).map(([file, text]) => [join(ROOT, file), text]),
	);
	const host = ts.createCompilerHost(parsed.options);
	const readFile = host.readFile.bind(host);
	const fileExists = host.fileExists.bind(host);
	host.readFile = (file) => extra.get(file) ?? readFile(file);
	host.fileExists = (file) => extra.has(file) || fileExists(file);
	const program = ts.createProgram({
		rootNames: [...parsed.fileNames, ...extra.keys()],
		options: { ...parsed.options, noEmit: true },
		host,
	});
	const reader = new MessageReader(program);
	const files = program
		.getSourceFiles()
		.filter((file) => relative(ROOT, file.fileName).startsWith('nodes/'));
	// Again while reading finds new functions that pass a message on.
	for (let round = 0; round < 20; round++) {
		let grew = false;
		for (const file of files) grew = reader.scan(file) || grew;
		if (!grew) break;
	}
	return reader.messages();
}

/** Cells of a table row: split at pipes outside code spans, escaped pipes kept. */
function cells(row: string): string[] {
	const out: string[] = [];
	let cell = '';
	let code = false;
	for (let i = 0; i < row.length; i++) {
		const char = row[i];
		if (char === '\\' && row[i + 1] === '|') {
			cell += '|';
			i++;
		} else if (char === '`') {
			code = !code;
			cell += char;
		} else if (char === '|' && !code) {
			out.push(cell);
			cell = '';
		} else cell += char;
	}
	out.push(cell);
	if (out[0].trim() === '') out.shift();
	if (out.length > 0 && out[out.length - 1].trim() === '') out.pop();
	return out.map((text) => text.trim());
}

const SEPARATOR = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

interface Table {
	line: number;
	header: string[];
	separator: string[];
	rows: string[][];
}

/** The tables of a Markdown text, outside fenced code. */
function tablesOf(markdown: string): Table[] {
	const lines = markdown.split('\n');
	const tables: Table[] = [];
	let fence: string | undefined;
	for (let i = 0; i < lines.length; i++) {
		const marker = /^\s*(```|~~~)/.exec(lines[i])?.[1];
		if (marker && (fence === undefined || marker === fence)) {
			fence = fence === undefined ? marker : undefined;
			continue;
		}
		if (fence !== undefined || !lines[i].includes('|') || !SEPARATOR.test(lines[i + 1] ?? ''))
			continue;
		const table: Table = {
			line: i + 1,
			header: cells(lines[i]),
			separator: cells(lines[i + 1]),
			rows: [],
		};
		let j = i + 2;
		for (; j < lines.length && lines[j].includes('|') && lines[j].trim() !== ''; j++)
			table.rows.push(cells(lines[j]));
		tables.push(table);
		i = j - 1;
	}
	return tables;
}

/** Tables whose header and separator differ in cells: GitHub renders them as text. */
export function tableProblems(files: Array<{ file: string; text: string }>): string[] {
	return files.flatMap(({ file, text }) =>
		tablesOf(text)
			.filter((table) => table.header.length !== table.separator.length)
			.map(
				(table) =>
					`${file}:${table.line}: a table's header has ${table.header.length} cells and its separator ${table.separator.length}, so it does not render`,
			),
	);
}

/** A doc's cell as a pattern: placeholders (*italic*, `…`) as wildcards, code and bold as text. */
function docPattern(cell: string): string {
	return readable(
		cell
			.replace(/`/g, '')
			.replace(/\*\*([^*]+)\*\*/g, '$1')
			.replace(/\*[^*]+\*/g, ANY)
			.replace(/…|\.\.\./g, ANY),
	);
}

/** The cells of the docs' tables of messages (a column headed "Message"), as patterns. */
export function documentedMessages(docs: Array<{ file: string; text: string }>): string[] {
	return docs.flatMap(({ text }) =>
		tablesOf(text).flatMap((table) => {
			const column = table.header.findIndex((cell) => /^message$/i.test(cell));
			return column < 0 ? [] : table.rows.map((row) => docPattern(row[column] ?? ''));
		}),
	);
}

/** Words and marks (each `…`, quote, colon… on its own), compared in lower case. */
const words = (pattern: string) =>
	pattern.toLowerCase().match(/…|[\p{L}\p{N}]+|[^\s\p{L}\p{N}…]/gu) ?? [];
const textLength = (pattern: string) =>
	words(pattern).reduce((sum, word) => sum + (word === '…' ? 0 : word.length), 0);
const MIN_CELL = 8;

/**
 * How much of a message's text (in characters of whole words and marks) a cell says as it is,
 * at best,
 * where the message can read as a part of the cell: each `…` of either standing for any words
 * of the other. -1 when it cannot.
 */
function aligned(message: string, cell: string): number {
	const a = words(message);
	const b = words(cell);
	const NONE = -1;
	// next[j]: the best for a[i + 1..] against b[j..]; row: the same for a[i..]. The rest of the
	// cell after the message is other text.
	let next = new Int32Array(b.length + 1);
	for (let i = a.length - 1; i >= 0; i--) {
		const row = new Int32Array(b.length + 1);
		row[b.length] = a[i] === '…' ? next[b.length] : NONE;
		for (let j = b.length - 1; j >= 0; j--) {
			let best = NONE;
			if (a[i] === '…') best = Math.max(next[j], row[j + 1]);
			if (b[j] === '…') best = Math.max(best, row[j + 1], next[j]);
			else if (a[i] === b[j] && next[j + 1] !== NONE)
				best = Math.max(best, next[j + 1] + a[i].length);
			row[j] = best;
		}
		next = row;
	}
	// Words of the cell before the message are other text too.
	return Math.max(...next);
}

/**
 * Whether a cell documents a message: the message reads as a part of it, and most of the
 * message's own text is said as it is (70%), or nearly all of the cell's (80%, a row written
 * with placeholders for many messages). So a placeholder of the cell's and a `…` of the
 * message's cannot make two different sentences one, nor can a cell that is only a placeholder
 * (`Item n: invalid "reference": …`) document every message.
 */
function documents(cell: string, message: string): boolean {
	if (textLength(cell) < MIN_CELL) return false;
	const said = aligned(message, cell);
	return said >= 0 && (said >= 0.7 * textLength(message) || said >= 0.8 * textLength(cell));
}

/** What the check reports: each message no table documents, with where the source gives it. */
export function messageProblems(messages: SourceMessage[], documented: string[]): string[] {
	const undocumented = new Map<string, string[]>();
	for (const { text, at } of messages) {
		if (documented.some((cell) => documents(cell, text))) continue;
		undocumented.set(text, [...(undocumented.get(text) ?? []), at]);
	}
	return [...undocumented].map(
		([text, at]) => `${at.join(', ')}: no docs table of messages has "${text}"`,
	);
}

if (import.meta.main) {
	const files = repoFiles();
	const markdown = files
		.filter((file) => file.endsWith('.md'))
		.map((file) => ({ file, text: readRepoFile(file) }));
	const docs = markdown.filter(({ file }) => dirname(file) === 'docs');
	fail('check:docs', [
		...tableProblems(markdown),
		...messageProblems(sourceMessages(), documentedMessages(docs)),
	]);
}
