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

// Node's writeFile truncates in place. The atomic variants do what PromiseFS's default does,
// with fs/promises calls: temporary file, (sync,) rename, (sync the directory).
async function writeDurable(path, bytes) {
  const handle = await fs.open(path, 'w');
  await handle.writeFile(bytes);
  await handle.sync();
  await handle.close();
}

async function writeAtomic(path, bytes) {
  const temporary = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  await fs.writeFile(temporary, bytes, { flag: 'wx', mode: 0o644 });
  await fs.rename(temporary, path);
}

async function writeAtomicDurable(path, bytes, dirPath) {
  const temporary = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`;
  await writeDurable(temporary, bytes);
  await fs.rename(temporary, path);
  const directory = await fs.open(dirPath, 'r');
  await directory.sync();
  await directory.close();
}

for (let round = 0; round < rounds; round++) {
  await measure('large-write', () => writeAtomicDurable(large, largeBytes, dir));
  await measure('large-write-in-place', () => writeDurable(`${large}.inplace`, largeBytes));
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
  await measure('small-write', () =>
    Promise.all(Array.from({ length: smallCount }, (_, i) => writeAtomic(`${dir}/node/${i}`, small))));
  await measure('small-write-in-place', () =>
    Promise.all(Array.from({ length: smallCount }, (_, i) => fs.writeFile(`${dir}/node/i${i}`, small))));
  await measure('durable-write', () =>
    Promise.all(Array.from({ length: durableCount }, (_, i) => writeAtomicDurable(`${dir}/node/d${i}`, small, `${dir}/node`))));
}

for (const [name, values] of Object.entries(samples)) {
  values.sort((a, b) => a - b);
  console.log(`${name}\tnode\t${values[values.length >> 1]}\t${values[0]}\t${values[values.length - 1]}`);
}
