// Module customization hooks, registered by worker.js with module.register() (Node >= 18.19 / 20.6).
// They run on Node's loader thread, so everything they need arrives through initialize().
//
// 1. `import ... from 'perflab'` resolves to this package's index.js: benchmark files need no
//    node_modules and nothing is installed into the user's project.
// 2. TypeScript files (.ts/.mts/.cts) are compiled with the TypeScript compiler that the host
//    installed from npm into its cache, when the Node under test cannot strip types itself.
// 3. Benchmark files named *.bench.js / bench_*.js are ES modules even without "type": "module"
//    in a package.json (perflab's benchmark files are always ES modules), unless they are plainly
//    CommonJS (require() and no import/export statement: a Benchmark.js or tinybench file).
// 4. `tinybench`, `mitata` and `benchmark` (Benchmark.js) resolve to perflab's compatibility layers
//    (compat/); worker.js does the same for require().
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const INDEX_URL = new URL('./index.js', import.meta.url).href;
// Other harnesses' APIs, kept exactly, on perflab (compat/): a benchmark file written for tinybench,
// mitata or Benchmark.js keeps its imports, and the real package need not be installed.
const COMPAT = {
  tinybench: new URL('./compat/tinybench.js', import.meta.url).href,
  mitata: new URL('./compat/mitata.js', import.meta.url).href,
  benchmark: new URL('./compat/benchmark.js', import.meta.url).href,
};
let typescriptDir = null;  // a directory holding node_modules/typescript, or null
let ts = null;

export async function initialize(data) {
  typescriptDir = data?.typescript || null;
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'perflab') return { url: INDEX_URL, format: 'module', shortCircuit: true };
  if (Object.hasOwn(COMPAT, specifier)) return { url: COMPAT[specifier], format: 'module', shortCircuit: true };
  try {
    return await nextResolve(specifier, context);
  } catch (err) {
    // TypeScript sources conventionally import './util.js' meaning './util.ts'.
    const parent = context.parentURL ?? '';
    if (err?.code === 'ERR_MODULE_NOT_FOUND' && /\.[cm]?tsx?$/.test(parent) && /^\.\.?\/.*\.[cm]?js$/.test(specifier)) {
      const alt = specifier.replace(/\.([cm]?)js$/, '.$1ts');
      try { return await nextResolve(alt, context); } catch { /* fall through to the original error */ }
    }
    throw err;
  }
}

export async function load(url, context, nextLoad) {
  if (typescriptDir && url.startsWith('file:') && /\.[cm]?ts$/.test(url)) {
    return { format: url.endsWith('.cts') ? 'commonjs' : 'module', source: await compile(url), shortCircuit: true };
  }
  if (url.startsWith('file:') && /\/(?:[^/]*\.bench|bench_[^/]*)\.js$/.test(url) && context.format !== 'module'
      && !plainlyCommonJS(await readFile(new URL(url), 'utf8'))) {
    return nextLoad(url, { ...context, format: 'module' });
  }
  return nextLoad(url, context);
}

async function compile(url) {
  if (ts === null) {
    const require = createRequire(typescriptDir.replace(/\/?$/, '/'));
    ts = require('typescript');
  }
  const path = new URL(url).pathname;
  const source = await readFile(new URL(url), 'utf8');
  const out = ts.transpileModule(source, {
    fileName: path,
    reportDiagnostics: true,
    compilerOptions: {
      module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, isolatedModules: true,
      inlineSourceMap: true, inlineSources: true,  // stack traces point at the .ts lines
    },
  });
  const diag = (out.diagnostics ?? []).find((d) => d.category === ts.DiagnosticCategory.Error);
  if (diag) {
    const { line, character } = diag.file ? diag.file.getLineAndCharacterOfPosition(diag.start ?? 0) : { line: 0, character: 0 };
    const err = new SyntaxError(ts.flattenDiagnosticMessageText(diag.messageText, '\n'));
    // the worker reads file:line from the first line of the stack, as Node itself formats it
    err.stack = `${path}:${line + 1}:${character + 1}\n${err.name}: ${err.message}`;
    throw err;
  }
  return out.outputText;
}

function plainlyCommonJS(source) {
  return /\brequire\s*\(/.test(source) && !/^\s*(?:import\s*[\w{*'"]|export\s)/m.test(source);
}
