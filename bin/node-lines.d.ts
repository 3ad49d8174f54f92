// Types of bin/node-lines.js (plain JavaScript, so that any Node parses it).
export declare const SUPPORTED_NODE_LINES: number[];
export declare function nodeLineVerdict(version: string): { level: "warning" | "error"; message: string } | undefined;
export declare function assertSupportedNode(version?: string): void;
