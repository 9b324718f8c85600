import { startFakeCouncil } from '../demo';

/**
 * Demo councils in a process of their own (issue 28, `npm run bench -- deletion-cpu`): a CPU figure of
 * the code under test must not include the servers answering it. argv: how many councils, files each.
 * Prints their URLs as one JSON line, stops when stdin closes.
 */
const [count = '1', files = '30'] = process.argv.slice(2);
const councils = await Promise.all(
  Array.from({ length: Number(count) }, (_, i) =>
    startFakeCouncil({ hostname: `ris-del-${i}.test`, objectsPerList: { file: Number(files) } }),
  ),
);
process.stdout.write(`${JSON.stringify(councils.map((c) => ({ url: c.url, systemUrl: c.systemUrl })))}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  Promise.all(councils.map((c) => c.close())).then(() => process.exit(0));
});
