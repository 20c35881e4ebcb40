// Spawn-and-wait throughput of /bin/true with child_process.spawn, each child waited for
// (its 'exit' event) before the next: prints `candidate<TAB>seconds<TAB>count`.
//
//   node Benchmarks/node/spawn-bench.mjs COUNT
//
// With PARENT_MIB=N in the environment, it first allocates and touches N MiB (a Buffer
// filled with one byte) and keeps it until the end.
import { spawn } from "node:child_process";

const count = Number(process.argv[2] ?? 500);
const ballast = Buffer.alloc(Number(process.env.PARENT_MIB ?? 0) * 1024 * 1024, 0x5a);
const start = process.hrtime.bigint();
for (let i = 0; i < count; i++) {
  const code = await new Promise((resolve, reject) => {
    const child = spawn("/bin/true", [], { stdio: "ignore" });
    child.on("error", reject);
    child.on("exit", resolve);
  });
  if (code !== 0) throw new Error(`/bin/true exited with ${code}`);
}
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
console.log(`Node child_process.spawn\t${seconds}\t${count}`);
if (ballast.length > 0 && ballast[ballast.length - 1] !== 0x5a) throw new Error("ballast lost");
