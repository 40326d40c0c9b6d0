// One measurement of the TypeScript binding for bench_hostile.py and tests/test_hostile.py: run
// one entry point of the built package on one input file in this (fresh) process and print, as
// JSON, the seconds it took and the peak memory above the process's baseline (VmHWM, reset
// just before the call through /proc/self/clear_refs; null where that is not Linux).
//
//     node bench/hostile_probe.mjs BUILT_PACKAGE_DIR ENTRY FILE [--repeat N]
//
// With --repeat N the call runs N times (after one run to warm up) and the least CPU time
// (process.cpuUsage: the load of other processes counts less) and least peak are printed.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [built, name, file, flag, count] = process.argv.slice(2);
const repeat = flag === "--repeat" ? Number(count) : 0;
const src = (m) => import(pathToFileURL(join(built, "dist", "src", m)).href);

function status(key) {
  try {
    const m = readFileSync("/proc/self/status", "utf8").match(new RegExp(`^${key}:\\s+(\\d+) kB`, "m"));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

const data = new Uint8Array(readFileSync(file));
let run;
if (name === "json" || name === "json_lenient") {
  const codec = await src("codec_json.js");
  const decode = name === "json" ? codec.decode : codec.decodeLenient;
  run = () => {
    try {
      return decode(data);
    } catch (e) {
      if (e instanceof codec.DecodeError) return String(e.message);
      throw e;
    }
  };
} else if (name === "replay") {
  const { replay } = await src("replay.js");
  run = () => JSON.stringify(replay(data));
} else if (name === "sse") {
  const { SSEDecoder } = await src("sse.js");
  run = () => {
    const d = new SSEDecoder();
    return d.feed(data);
  };
} else {
  console.error(`unknown entry point ${name}`);
  process.exit(2);
}
function once() {
  if (globalThis.gc) globalThis.gc();
  const baseline = status("VmRSS");
  let reset = true;
  try {
    writeFileSync("/proc/self/clear_refs", "5");
  } catch {
    reset = false;
  }
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  let result = run();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  const peak = reset ? status("VmHWM") : null;
  result = null;
  return { seconds, cpu: (used.user + used.system) / 1e6, peak: peak === null || baseline === null ? null : Math.max(0, peak - baseline) };
}

if (repeat) {
  once();
  const runs = Array.from({ length: repeat }, once);
  const least = (key) => Math.min(...runs.map((r) => r[key]));
  console.log(JSON.stringify({ seconds: least("seconds"), cpu: least("cpu"), peak: runs.some((r) => r.peak === null) ? null : least("peak") }));
} else console.log(JSON.stringify(once()));
