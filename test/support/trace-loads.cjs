// Preloaded by test/support/cli-process.ts: records which heavy packages a CLI process loads and prints
// them as one `LOADED …` line on stderr at exit. The CLI's modules are compiled to CommonJS by tsx, so
// every import passes Module._load.
const Module = require('node:module');

const HEAVY = /dynalite|s3rver|fauxqs|@aws-sdk|pdfjs-dist|cheerio/;
const seen = new Set();
const load = Module._load;
Module._load = function traced(request, ...rest) {
  if (HEAVY.test(request)) seen.add(request);
  return load.call(this, request, ...rest);
};
process.on('exit', () => {
  process.stderr.write(`LOADED ${[...seen].join(',')}\n`);
});
