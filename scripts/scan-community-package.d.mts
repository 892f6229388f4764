// Types for the two exports of n8n's scanner that scripts/scan.mts uses; the package ships none.
declare module '@n8n/scan-community-package/scanner/scanner.mjs' {
	export interface ScanResult {
		passed: boolean;
		message?: string;
		details?: string;
	}
	export const SOURCE_FILE_PATTERNS: string[];
	export function analyzePackage(packageDir: string, filePatterns?: string[]): Promise<ScanResult>;
}
