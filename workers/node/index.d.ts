// Types for perflab's JavaScript/TypeScript authoring API (see index.js).

/** Parameter axes: every combination of values is one case. Values are shown with String(value). */
export type Params = Record<string, readonly unknown[]>;

/** One value per axis, as the case sees them: `{ n: 10 }` (typed loosely so hooks can destructure
 * with their own annotation, e.g. `({ n }: { n: number }) => …`). */
export type ParamValues = any;

export interface BenchOptions<S = any> {
  /** Parameter axes of this benchmark, added to those of its group. */
  params?: Params;
  /** Runs once per case, outside timing; its result (if not undefined) is what the benchmark receives. */
  setup?: (params: ParamValues) => S | Promise<S>;
  /** Runs once per case after its last measurement. */
  teardown?: (state: S, params: ParamValues) => unknown;
  /** Runs before every timed iteration, outside the timed region (use only when the benchmark consumes state). */
  iterationSetup?: (state: S, params: ParamValues) => unknown;
  iterationTeardown?: (state: S, params: ParamValues) => unknown;
  /** Other benchmarks of the group are reported relative to this one. */
  baseline?: boolean;
  /** Operations performed by one call; results are reported per operation. Default 1. */
  ops?: number;
  /** Force async (await every call) or sync timing. Default: detected from the first call's result. */
  async?: boolean;
  categories?: string[];
  description?: string;
  /** Free-form metadata copied into the results. */
  meta?: Record<string, unknown>;
}

/** Chainable refinements of a declared benchmark. */
export interface BenchHandle<S = any> {
  params(axes: Params): BenchHandle<S>;
  setup(fn: (params: ParamValues) => S | Promise<S>): BenchHandle<S>;
  teardown(fn: (state: S, params: ParamValues) => unknown): BenchHandle<S>;
  baseline(on?: boolean): BenchHandle<S>;
  ops(n: number): BenchHandle<S>;
}

/**
 * Declare a benchmark. `fn(state)` is timed; `state` is what `setup` returned, or the case's
 * parameter values when there is no setup. A function returning a promise is awaited on every call.
 * Its id is `<file stem>.<name>`, or `<file stem>.<group>.<name>` inside a group.
 */
export function bench<S = any>(name: string, fn: (state: S) => unknown, options?: BenchOptions<S>): BenchHandle<S>;

export interface GroupOptions {
  params?: Params;
  setup?: (params: ParamValues) => unknown;
  teardown?: (state: any, params: ParamValues) => unknown;
  categories?: string[];
}

/** Group benchmarks (rows are grouped by it; a baseline is relative to its group). `body` runs synchronously. */
export function group(name: string, body: () => void): void;
export function group(name: string, options: GroupOptions, body: () => void): void;

/** Parameter axes for the benchmarks declared after this call in the enclosing group (or file). */
export function params(axes: Params): void;
