// Bruno's `interpolate` (from @usebruno/common) on the cases bench_render.py sends, so the
// anchor is measured in the same run as Pigeon, in rounds taken in turn with Pigeon's. Reads
// one JSON line (the cases), then one command a line, and answers each with one JSON line:
//   "typical SECONDS" -> {"typical": renders/s}   one round of the typical request
//   "large"           -> {"large_ms": ms}         one render of the large template
// Needs: npm install --prefix benchmarks/.bruno @usebruno/common
const path = require("path");
const readline = require("readline");
const modules = process.env.PIGEON_BRUNO_MODULES || path.join(__dirname, ".bruno", "node_modules");
const { interpolate } = require(path.join(modules, "@usebruno", "common"));

let c = null;
const renderTypical = () => {
  const out = [interpolate(c.url, c.variables)];
  for (const text of c.texts) out.push(interpolate(text, c.variables));
  out.push(interpolate(c.body, c.variables, { escapeJSONStrings: true }));
  return out;
};
const rate = (fn, seconds) => {
  let n = 0;
  const start = process.hrtime.bigint();
  const limit = BigInt(Math.round(seconds * 1e9));
  while (process.hrtime.bigint() - start < limit) {
    for (let i = 0; i < 200; i++) fn();
    n += 200;
  }
  return n / (Number(process.hrtime.bigint() - start) / 1e9);
};

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  if (c === null) {
    c = JSON.parse(line);
    console.log(JSON.stringify({ ready: true }));
    return;
  }
  const [command, arg] = line.trim().split(" ");
  if (command === "typical") {
    console.log(JSON.stringify({ typical: rate(renderTypical, Number(arg)) }));
  } else if (command === "large") {
    const start = process.hrtime.bigint();
    const out = interpolate(c.large, c.large_variables);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (out.includes("{{")) throw new Error("unresolved placeholders in the large template");
    console.log(JSON.stringify({ large_ms: ms }));
  }
});
