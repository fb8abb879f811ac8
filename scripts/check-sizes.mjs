// Issue 13's sizes, checked on every lint and test run; prints each oversize and exits 1 if any:
// - no source file over ~400 lines (apps/*/src, packages/*/src; tests exempt);
// - no function over ~80 lines on the server and in the contract (apps/server/src, packages/*/src;
//   the rule is part of the server's modules; the web's components are listed with --web).
// "~" is a tenth: 440 and 88 lines. Past them, a reason written beside it: for a file, a comment in its
// first lines saying `Long file: <why>`; for a function, its own leading comment (on the function, its
// variable or its property) saying `Long: <why>`. A factory whose length is the sum of its methods says
// so, and each method is then checked on its own.
//
// Usage: node scripts/check-sizes.mjs [root] [--web], root defaulting to this repository.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const args = process.argv.slice(2);
const WEB = args.includes('--web');
const ROOT = resolve(args.find((a) => !a.startsWith('--')) ?? join(dirname(fileURLToPath(import.meta.url)), '..'));
const FILE_LINES = 440;
const FUNCTION_LINES = 88;
/** How far into a file its `Long file:` reason may stand. */
const FILE_REASON_WITHIN = 40;

const walk = (dir) =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? (e.name === 'node_modules' ? [] : walk(join(dir, e.name))) : [join(dir, e.name)]))
    : [];
const sourceFiles = (dir) => walk(dir).filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f) && !/\.d\.ts$/.test(f));
const lineCount = (text) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

const isFunction = (n) => ts.isFunctionDeclaration(n) || ts.isFunctionExpression(n) || ts.isArrowFunction(n) || ts.isMethodDeclaration(n) || ts.isGetAccessor(n) || ts.isSetAccessor(n);

/** The node whose leading comment speaks for a function: itself, or the variable, property or export holding it. */
function holderOf(fn) {
  let n = fn;
  for (;;) {
    const p = n.parent;
    if (!p) return n;
    if (ts.isVariableDeclaration(p) || ts.isVariableDeclarationList(p) || ts.isPropertyAssignment(p) || ts.isExportAssignment(p)) n = p;
    else if (ts.isVariableStatement(p)) return p;
    else if ((ts.isCallExpression(p) || ts.isParenthesizedExpression(p) || ts.isAsExpression(p) || ts.isSatisfiesExpression(p)) && n === fn) n = p;
    else return n;
  }
}

const leadingComments = (text, node) => (ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []).map((r) => text.slice(r.pos, r.end)).join('\n');

function nameOf(fn) {
  if (fn.name) return fn.name.getText();
  const holder = holderOf(fn);
  if (ts.isVariableStatement(holder)) return holder.declarationList.declarations[0]?.name.getText() ?? '(anonymous)';
  if (ts.isPropertyAssignment(holder)) return holder.name.getText();
  return '(anonymous)';
}

function longFunctions(file, text) {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found = [];
  const visit = (n) => {
    if (isFunction(n)) {
      const first = src.getLineAndCharacterOfPosition(n.getStart(src)).line;
      const lines = src.getLineAndCharacterOfPosition(n.getEnd()).line - first + 1;
      if (lines > FUNCTION_LINES && !/\bLong: \S/.test(leadingComments(text, holderOf(n)))) found.push(`${first + 1} ${nameOf(n)}: ${lines} lines`);
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
  return found;
}

const oversizes = [];
const webFunctions = [];
for (const dir of ['apps', 'packages']) {
  const base = join(ROOT, dir);
  if (!existsSync(base)) continue;
  for (const unit of readdirSync(base)) {
    const src = join(base, unit, 'src');
    const checksFunctions = !(dir === 'apps' && unit !== 'server');
    for (const file of sourceFiles(src)) {
      const text = readFileSync(file, 'utf8');
      const name = relative(ROOT, file);
      const lines = lineCount(text);
      if (lines > FILE_LINES && !/\bLong file: \S/.test(text.split('\n').slice(0, FILE_REASON_WITHIN).join('\n'))) {
        oversizes.push(`${name}: ${lines} lines (over ${FILE_LINES}; split it, or say why in a "Long file:" comment at its top)`);
      }
      if (checksFunctions) for (const f of longFunctions(file, text)) oversizes.push(`${name}:${f} (over ${FUNCTION_LINES}; split it, or say why in a "Long:" comment above it)`);
      else if (WEB) for (const f of longFunctions(file, text)) webFunctions.push(`${name}:${f}`);
    }
  }
}
if (WEB) {
  console.log(`web functions over ${FUNCTION_LINES} lines (not enforced): ${webFunctions.length}`);
  for (const f of webFunctions) console.log(`  ${f}`);
}
if (oversizes.length > 0) {
  console.error(`${oversizes.length} oversize(s) against issue 13's sizes (files ~400 lines, functions ~80, each with a tenth's leeway):`);
  for (const o of oversizes) console.error(`  ${o}`);
  process.exit(1);
}
