// Node's fs/promises doing PromiseFSBench's work, for the same table.
//   node fs-promises-bench.mjs DIR ROUNDS LARGE_MIB
// Prints "workload<TAB>node<TAB>median<TAB>min<TAB>max" in milliseconds.
import { promises as fs } from 'node:fs';
import { performance } from 'node:perf_hooks';

const [dir, roundsArg, largeArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 3);
const largeMiB = Number(largeArg ?? 1024);
const small = Buffer.alloc(4096, 0x61);
const smallCount = 10_000;
const durableCount = 200;
const large = `${dir}/large-node.bin`;
const largeBytes = Buffer.alloc(largeMiB << 20, 0x5a);
await fs.mkdir(`${dir}/node`, { recursive: true });

const samples = {};
async function measure(name, body) {
  const start = performance.now();
  await body();
  (samples[name] ??= []).push(performance.now() - start);
}

// writeFile truncates in place; the durable variants add what PromiseFS does by default.
async function writeDurable(path, bytes) {
  const handle = await fs.open(path, 'w');
  await handle.writeFile(bytes);
  await handle.sync();
  await handle.close();
}

for (let round = 0; round < rounds; round++) {
  await measure('large-write', () => writeDurable(large, largeBytes));
  await measure('large-read', async () => {
    const bytes = await fs.readFile(large);
    if (bytes.length !== largeBytes.length) throw new Error('short read');
  });
  await measure('chunk-read', async () => {
    const handle = await fs.open(large);
    const buffer = Buffer.alloc(1 << 20);
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    await handle.close();
    if (total !== largeBytes.length) throw new Error('short chunked read');
  });
  await measure('small-read', async () => {
    const all = await Promise.all(Array.from({ length: smallCount }, (_, i) => fs.readFile(`${dir}/small/${i}`)));
    if (all.reduce((n, b) => n + b.length, 0) !== smallCount * 4096) throw new Error('short small reads');
  });
  // Node's writeFile writes in place: the same work as PromiseFS's .inPlace; listed under
  // both rows (PromiseFS's default, atomic, does a rename more).
  const start = performance.now();
  await Promise.all(Array.from({ length: smallCount }, (_, i) => fs.writeFile(`${dir}/node/${i}`, small)));
  const elapsed = performance.now() - start;
  (samples['small-write'] ??= []).push(elapsed);
  (samples['small-write-in-place'] ??= []).push(elapsed);
  await measure('durable-write', () =>
    Promise.all(Array.from({ length: durableCount }, (_, i) => writeDurable(`${dir}/node/d${i}`, small))));
}

for (const [name, values] of Object.entries(samples)) {
  values.sort((a, b) => a - b);
  console.log(`${name}\tnode\t${values[values.length >> 1]}\t${values[0]}\t${values[values.length - 1]}`);
}
