/** ok: as the package expects. warning: it works, but differs from the spec or needs a look. failed: fix it before going live. */
type CheckResult = 'ok' | 'warning' | 'failed';

/** One output item of Service → Check. A type, not an interface, so it is an IDataObject. */
export type CheckItem = {
	check: string;
	result: CheckResult;
	/** What the service answered, in plain words: never a key, a header of the request or the base URL. */
	seen: string;
	whatThePackageDoes: string;
};
