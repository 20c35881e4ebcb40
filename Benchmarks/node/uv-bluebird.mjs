// Bluebird's "madeup-parallel" and "doxbee-sequential" shapes on Node's native promises, the
// fake I/O being setTimeout(…, 1): the same work PromiseUVBench does on a UVLoop.
//
//   node uv-bluebird.mjs madeup-parallel|doxbee-sequential
//
// Prints: workload, "node", milliseconds, peak RSS in KiB (tab-separated). One workload per
// process, so the peak RSS is that workload's.
import { performance } from "node:perf_hooks";

const fakeIO = (value) => new Promise((resolve) => setTimeout(() => resolve(value), 1));

// 10 000 concurrent jobs, each 25 fake I/O calls in parallel joined with Promise.all.
function madeupParallel() {
  const jobs = [];
  for (let job = 0; job < 10000; job++) {
    const calls = [];
    for (let call = 0; call < 25; call++) calls.push(fakeIO(job + call));
    jobs.push(Promise.all(calls).then((values) => values.length));
  }
  return Promise.all(jobs).then((counts) => counts.reduce((a, b) => a + b, 0));
}

// 10 000 concurrent jobs, each a chain of 10 dependent fake I/O calls.
function doxbeeSequential() {
  const jobs = [];
  for (let job = 0; job < 10000; job++) {
    let step = fakeIO(job);
    for (let i = 1; i < 10; i++) step = step.then((previous) => fakeIO(previous + 1));
    jobs.push(step);
  }
  return Promise.all(jobs).then((values) => values.length);
}

const workloads = {
  "madeup-parallel": [madeupParallel, 250000],
  "doxbee-sequential": [doxbeeSequential, 10000],
};
const name = process.argv[2];
if (!(name in workloads)) {
  console.error(`usage: node uv-bluebird.mjs ${Object.keys(workloads).join("|")}`);
  process.exit(2);
}
const [workload, expected] = workloads[name];
const start = performance.now();
const result = await workload();
const elapsed = performance.now() - start;
if (result !== expected) {
  console.error(`${name}: got ${result}, expected ${expected}`);
  process.exit(1);
}
console.log(`${name}\tnode\t${elapsed.toFixed(2)}\t${process.resourceUsage().maxRSS}`);
