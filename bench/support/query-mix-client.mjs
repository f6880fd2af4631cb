/**
 * Runs a query mix against a node, one search after another, from its own process: a bench that
 * measures the node's memory must not count its client's buffers (fetch's bodies and gunzip's
 * chunks are larger than the node's own garbage per search).
 *
 *   node bench/support/query-mix-client.mjs <address> <rounds> '<JSON array of paths>'
 */
const [address, rounds, paths] = process.argv.slice(2);
const mix = JSON.parse(paths);
for (let round = 0; round < Number(rounds); round++) {
  for (const path of mix) {
    const response = await fetch(`${address}${path}`);
    await response.arrayBuffer();
    if (response.status !== 200) {
      console.error(`${path} answered ${response.status}`);
      process.exit(1);
    }
  }
}
