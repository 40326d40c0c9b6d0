#!/usr/bin/env node
// Drives the official @ag-ui/proto encoder/decoder for tests/test_proto_interop.py and
// bench/bench_proto.py. Packages resolve from tests/node (installed by `make` setup).
//
//   node tests/proto_peer.cjs ops      < requests.jsonl   one JSON answer per request line
//   node tests/proto_peer.cjs bench FILE.jsonl REPEATS    events/s of their encode and decode
//   node tests/proto_peer.cjs bench-rounds FILE.jsonl     one timed round per line read (below)
//
// A request is {"op": "encode", "event": {...}} -> {"hex": "...", "warnings": [...]} or
// {"op": "decode", "hex": "..."} -> {"event": {...}}; a throw becomes {"error": "..."}.
"use strict";
const fs = require("fs");
const path = require("path");

const NODE_DIR = process.env.SPECBIND_NODE_DIR || path.join(__dirname, "node");
const load = (name) => require(require.resolve(name, { paths: [NODE_DIR] }));
const proto = load("@ag-ui/proto");

function captureWarnings(fn) {
  const warnings = [];
  const original = console.warn;
  console.warn = (...args) => warnings.push(args.map(String).join(" "));
  try {
    return [fn(), warnings];
  } finally {
    console.warn = original;
  }
}

function answer(request) {
  try {
    if (request.op === "encode") {
      const [bytes, warnings] = captureWarnings(() => proto.encode(request.event));
      return { hex: Buffer.from(bytes).toString("hex"), warnings };
    }
    if (request.op === "decode") {
      const [event, warnings] = captureWarnings(() => proto.decode(new Uint8Array(Buffer.from(request.hex, "hex"))));
      return { event, warnings };
    }
    return { error: "unknown op " + request.op };
  } catch (e) {
    return { error: String((e && e.message) || e), name: e && e.name };
  }
}

function ops() {
  const lines = fs.readFileSync(0, "utf8").split("\n");
  const out = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    out.push(JSON.stringify(answer(JSON.parse(line))));
  }
  process.stdout.write(out.join("\n") + (out.length ? "\n" : ""));
}

function bench(file, repeats) {
  // Same events as the Python side: one JSON document a line. Timed passes after one warm-up;
  // the median pass is reported.
  const events = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";
  const original = console.warn;
  console.warn = () => {};
  const now = () => Number(process.hrtime.bigint()) / 1e9;
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  let frames = events.map((e) => proto.encode(e));
  const encodeSeconds = [];
  const decodeSeconds = [];
  let size = 0;
  for (const f of frames) size += f.length;
  for (let r = 0; r <= repeats; r++) {
    let t0 = now();
    for (let i = 0; i < events.length; i++) frames[i] = proto.encode(events[i]);
    const te = now() - t0;
    t0 = now();
    let k = 0;
    for (let i = 0; i < frames.length; i++) k += proto.decode(frames[i]).type.length;
    const td = now() - t0;
    if (r > 0) {
      encodeSeconds.push(te);
      decodeSeconds.push(td);
    }
  }
  console.warn = original;
  const n = events.length;
  process.stdout.write(
    JSON.stringify({
      node: process.version,
      events: n,
      bytes: size,
      encode_eps: Math.round(n / median(encodeSeconds)),
      decode_eps: Math.round(n / median(decodeSeconds)),
      encode_seconds: encodeSeconds,
      decode_seconds: decodeSeconds,
    }) + "\n",
  );
}

function benchRounds(file) {
  // One warm process, timed on request: after a warm-up pass, each line read from stdin asks
  // for one encode pass and one decode pass of every event, answered with their seconds, so
  // that the caller can interleave these rounds with its own (a drift of the machine's speed
  // then hits both sides alike). The first line written describes the corpus.
  const events = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";
  console.warn = () => {};
  const now = () => Number(process.hrtime.bigint()) / 1e9;
  const frames = events.map((e) => proto.encode(e));
  let size = 0;
  for (const f of frames) size += f.length;
  const pass = () => {
    let t0 = now();
    for (let i = 0; i < events.length; i++) frames[i] = proto.encode(events[i]);
    const encode = now() - t0;
    t0 = now();
    let k = 0;
    for (let i = 0; i < frames.length; i++) k += proto.decode(frames[i]).type.length;
    return { encode, decode: now() - t0 };
  };
  pass();
  fs.writeSync(1, JSON.stringify({ node: process.version, events: events.length, bytes: size }) + "\n");
  const buf = Buffer.alloc(1);
  for (;;) {
    let line = "";
    for (;;) {
      let got = 0;
      try {
        got = fs.readSync(0, buf, 0, 1, null);
      } catch (e) {
        if (e.code === "EAGAIN") continue;
        throw e;
      }
      if (got === 0) return;
      if (buf[0] === 10) break;
      line += String.fromCharCode(buf[0]);
    }
    if (line.trim()) fs.writeSync(1, JSON.stringify(pass()) + "\n");
  }
}

const mode = process.argv[2];
if (mode === "ops") ops();
else if (mode === "bench") bench(process.argv[3], parseInt(process.argv[4] || "3", 10));
else if (mode === "bench-rounds") benchRounds(process.argv[3]);
else {
  process.stderr.write("usage: proto_peer.cjs ops | bench FILE REPEATS | bench-rounds FILE\n");
  process.exit(2);
}
