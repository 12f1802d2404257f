/** The part of Electronegativity's programmatic API that test/security/electronegativity.ts uses. */
declare module '@doyensec/electronegativity' {
  interface RunOptions {
    input: string;
    output?: string;
    isSarif?: boolean;
    isRelative?: boolean;
    customScan?: string[];
    severitySet?: string;
    confidenceSet?: string;
    electronVersionOverride?: string;
    parserPlugins?: string[];
  }
  export default function run(options: RunOptions, forCli?: boolean): Promise<{ errors: unknown[]; issues: unknown[] }>;
}
