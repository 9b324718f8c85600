import { startAwsPeers } from '../cli/local/peers';

/**
 * The local AWS peers in a process of their own, so that a benchmark's CPU figures count only the code
 * under test. Prints the peers' environment as one JSON line, stops when stdin closes.
 */
const peers = await startAwsPeers();
process.stdout.write(`${JSON.stringify(peers.env)}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  peers.stop().then(() => process.exit(0));
});
