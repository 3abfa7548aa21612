// judgebox: prepare the tests of a JavaScript/TypeScript assert case for the tests' process, once per
// distinct test code (a sandboxed build, cached). argv: the tests' file, the output file, the version.
// TypeScript is transpiled (CommonJS, esModuleInterop: `import assert from "assert"` works); then the
// tests must compile as the body of the function the tests' process runs them in. Exit 1 (with the
// reason on stderr): the tests do not compile, which is the caller's fault, never the program's.
const fs = require('fs');
const vm = require('vm');
const [source, output] = process.argv.slice(1);
let code = fs.readFileSync(source, 'utf8');
try {
  if (source.endsWith('.ts')) {
    const ts = require('typescript');
    const out = ts.transpileModule(code, {
      reportDiagnostics: true, fileName: 'tests.ts',
      compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS, esModuleInterop: true },
    });
    const errors = (out.diagnostics || []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    if (errors.length) throw new SyntaxError(errors.join('\n'));
    code = out.outputText;
  }
  vm.compileFunction(code, ['exports', 'require', 'module', '__filename', '__dirname'], { filename: 'tests.js' });
} catch (error) {
  console.error(String(error && error.message));
  process.exit(1);
}
fs.writeFileSync(output, code);
