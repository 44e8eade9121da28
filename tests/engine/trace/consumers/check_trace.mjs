// Loads asyncscope Chrome-trace exports with independent consumers and checks
// that each keeps every slice we wrote and binds every flow arrow we wrote to
// the right slices at both ends. Our own code; the consumers come from npm
// (package.json here pins them, the test set-up installs them).
//
//   node check_trace.mjs [--report] TRACE.json...
//
// Consumers:
//   devtools    @paulirish/trace_engine: the trace engine of Chrome DevTools'
//               Performance panel. Its thread tree drops a slice that starts
//               inside the previous one and ends after it (ts + dur added as
//               µs doubles); its flows bind a v1 `s`/`f` event to the first
//               non-flow event with the same ts, pid, tid and cat, and group
//               the events of one flow by cat, name and id.
//   tracerbench @tracerbench/trace-model: a minimal model of trace events
//               (start = ts, end = ts + dur, in µs doubles); it binds no flows,
//               so the Trace Event Format's rule is applied to its model: a
//               flow event binds to the innermost slice of its thread that
//               encloses its ts (`f` with bp "e"); v2 flows chain on bind_id
//               in start order.
// Prints one line per trace and consumer: slices kept/written, arrows
// bound/written; exits 1 if any slice is lost or any arrow unbound, 2 on
// bad usage or an unreadable file. With --report it only prints (exit 0).
import fs from 'node:fs';
import {createRequire} from 'node:module';

const require = createRequire(import.meta.url);

// The trace engine expects a browser; DOMRect is the one global it touches.
globalThis.DOMRect ??= class DOMRect {
  constructor(x = 0, y = 0, width = 0, height = 0) {
    Object.assign(this, {x, y, width, height});
  }
};

// What a slice is in our format: args.event since format 4, the category before.
const kindOf = e => e.args?.event ?? e.cat;

// The written file, as we meant it: X events per thread, v1 flow starts, v2 chains.
function written(events) {
  const slices = new Map();  // tid -> count
  let v1 = 0;
  const v2 = new Map();  // bind_id -> {outs, ins}
  for (const e of events) {
    if (e.ph === 'X') slices.set(e.tid, (slices.get(e.tid) ?? 0) + 1);
    if (e.ph === 's') ++v1;
    if (e.ph === 'X' && e.bind_id !== undefined) {
      const c = v2.get(e.bind_id) ?? {outs: 0, ins: 0};
      if (e.flow_out) ++c.outs;
      if (e.flow_in) ++c.ins;
      v2.set(e.bind_id, c);
    }
  }
  let v2Arrows = 0;
  for (const c of v2.values()) v2Arrows += c.ins;
  return {slices, v1, v2Arrows};
}

// Is [from, to] (two X events, in arrow order) one of the arrows we write?
function rightPair(from, to) {
  const a = kindOf(from), b = kindOf(to);
  if (a === 'enqueue') return (b === 'op' || b === 'launch') && from.args.id === to.args.id;
  if (a === 'launch') return b === 'op' && from.args.id === to.args.id;
  if (a === 'op') return b === 'sync' && to.args.waited_for === from.args.id;
  return false;
}

function countByTid(list) {
  const m = new Map();
  for (const e of list) m.set(e.tid, (m.get(e.tid) ?? 0) + 1);
  return m;
}

function compareSlices(want, kept, problems) {
  let w = 0, k = 0;
  for (const [tid, n] of want) {
    const got = kept.get(tid) ?? 0;
    w += n;
    k += got;
    if (got !== n) problems.push(`tid ${tid}: ${got} of ${n} slices kept`);
  }
  return {written: w, kept: k};
}

async function devtools(events, want) {
  const Trace = await import('@paulirish/trace_engine/models/trace/trace.js');
  const model = Trace.TraceModel.Model.createWithAllHandlers();
  await model.parse(events);
  const data = model.parsedTrace().data;
  const problems = [];
  // Slices the thread trees hold: what the timeline draws.
  const kept = [];
  for (const [, process] of data.Renderer.processes) {
    for (const [, thread] of process.threads) {
      for (const e of thread.entries) {
        if (e.ph === 'X' && data.Renderer.entryToNode.has(e)) kept.push(e);
      }
    }
  }
  const slices = compareSlices(want.slices, countByTid(kept), problems);
  let bound = 0;
  for (const flow of data.Flows.flows) {
    if (flow.length === 2 && rightPair(flow[0], flow[1])) {
      ++bound;
    } else {
      problems.push(`flow bound to [${flow.map(e => `${e.ph} ${kindOf(e)} ${e.name} id ${e.args?.id}`).join(' -> ')}]`);
    }
  }
  if (bound !== want.v1) problems.push(`${bound} of ${want.v1} flow arrows bound`);
  return {slices, arrows: {written: want.v1, bound}, problems};
}

function tracerbench(events, want) {
  const {buildModel} = require('@tracerbench/trace-model');
  const model = buildModel(events);
  const problems = [];
  const byTid = new Map();  // tid -> complete events, by start
  for (const process of model.processes) {
    for (const thread of process.threads) {
      const complete = thread.events.filter(e => e.isComplete());
      complete.sort((a, b) => a.start - b.start);
      byTid.set(thread.id, complete);
    }
  }
  const kept = new Map();
  for (const [tid, list] of byTid) kept.set(tid, list.length);
  const slices = compareSlices(want.slices, kept, problems);
  // Slices that are disjoint in exact ns must be disjoint in what the model computed.
  for (const [tid, list] of byTid) {
    const exact = [...list].sort((a, b) => a.args.ns_ts - b.args.ns_ts);
    for (let i = 1; i < exact.length; ++i) {
      const prev = exact[i - 1], next = exact[i];
      if (prev.args.ns_ts + (prev.args.ns_dur ?? 0) <= next.args.ns_ts && prev.end > next.start) {
        problems.push(`tid ${tid}: ${prev.name} ends at ${prev.end} µs, after ${next.name} starts at ${next.start} µs`);
      }
    }
  }
  // v1: each flow event binds to the innermost slice of its thread that encloses it.
  const enclosing = (tid, t) => {
    let best;
    for (const s of byTid.get(tid) ?? []) {
      if (s.start > t) break;
      if (t <= s.end) best = s;
    }
    return best?.traceEvent;
  };
  const starts = new Map(), ends = new Map();
  for (const thread of model.processes.flatMap(p => p.threads)) {
    for (const e of thread.events) {
      if (e.ph !== 's' && e.ph !== 'f') continue;
      const key = `${e.traceEvent.cat}\u0000${e.name}\u0000${e.traceEvent.id}`;
      (e.ph === 's' ? starts : ends).set(key, enclosing(thread.id, e.start));
    }
  }
  let bound = 0;
  for (const [key, from] of starts) {
    const to = ends.get(key);
    if (from && to && rightPair(from, to)) {
      ++bound;
    } else {
      problems.push(`v1 flow ${key.replaceAll('\u0000', ' ')} binds ${from?.name} -> ${to?.name}`);
    }
  }
  if (bound !== want.v1) problems.push(`${bound} of ${want.v1} v1 arrows bound`);
  // v2: along one bind_id, in start order, each flow_in takes the last flow_out before it.
  const chains = new Map();
  for (const list of byTid.values()) {
    for (const s of list) {
      if (s.traceEvent.bind_id === undefined) continue;
      if (!chains.has(s.traceEvent.bind_id)) chains.set(s.traceEvent.bind_id, []);
      chains.get(s.traceEvent.bind_id).push(s);
    }
  }
  let v2Bound = 0;
  for (const chain of chains.values()) {
    chain.sort((a, b) => a.start - b.start);
    let out;
    for (const s of chain) {
      if (s.traceEvent.flow_in) {
        if (out && rightPair(out.traceEvent, s.traceEvent)) {
          ++v2Bound;
        } else {
          problems.push(`v2 flow into ${kindOf(s.traceEvent)} ${s.name} (bind_id ${s.traceEvent.bind_id}) from ${out?.name}`);
        }
      }
      if (s.traceEvent.flow_out) out = s;
    }
  }
  if (v2Bound !== want.v2Arrows) problems.push(`${v2Bound} of ${want.v2Arrows} v2 arrows bound`);
  return {slices, arrows: {written: want.v1 + want.v2Arrows, bound: bound + v2Bound}, problems};
}

async function main() {
  const args = process.argv.slice(2);
  const report = args[0] === '--report';
  const files = report ? args.slice(1) : args;
  if (files.length === 0) {
    console.error('usage: node check_trace.mjs [--report] TRACE.json...');
    process.exit(2);
  }
  let failed = false;
  for (const file of files) {
    let text;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      console.error(`cannot read ${file}: ${e.message}`);
      process.exit(2);
    }
    const want = written(JSON.parse(text).traceEvents);
    // Each consumer gets its own copy: both annotate the events they are given.
    const results = {};
    for (const [name, load] of Object.entries({devtools, tracerbench})) {
      try {
        results[name] = await load(JSON.parse(text).traceEvents, want);
      } catch (e) {
        const lost = {written: 0, kept: 0};
        results[name] = {slices: lost, arrows: {written: 0, bound: 0}, problems: [`cannot load: ${e.message}`]};
      }
    }
    for (const [name, r] of Object.entries(results)) {
      const ok = r.problems.length === 0;
      failed ||= !ok;
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${file} ${name}: slices ${r.slices.kept}/${r.slices.written} kept, ` +
                  `arrows ${r.arrows.bound}/${r.arrows.written} bound`);
      for (const p of r.problems.slice(0, 5)) console.log(`       ${p}`);
      if (r.problems.length > 5) console.log(`       ... and ${r.problems.length - 5} more`);
    }
  }
  process.exit(failed && !report ? 1 : 0);
}

await main();
