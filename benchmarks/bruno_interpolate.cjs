// Bruno's `interpolate` (from @usebruno/common) on the cases bench_render.py writes to stdin,
// so the anchor is measured in the same run as Pigeon. Prints one JSON line of figures.
// Needs: npm install --prefix benchmarks/.bruno @usebruno/common
const path = require("path");
const modules = process.env.PIGEON_BRUNO_MODULES || path.join(__dirname, ".bruno", "node_modules");
const { interpolate } = require(path.join(modules, "@usebruno", "common"));

let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const c = JSON.parse(input);
  const renderTypical = () => {
    const out = [interpolate(c.url, c.variables)];
    for (const text of c.texts) out.push(interpolate(text, c.variables));
    out.push(interpolate(c.body, c.variables, { escapeJSONStrings: true }));
    return out;
  };
  const rate = (fn) => {
    let n = 0;
    const start = process.hrtime.bigint();
    const limit = BigInt(Math.round(c.seconds * 1e9));
    while (process.hrtime.bigint() - start < limit) {
      for (let i = 0; i < 200; i++) fn();
      n += 200;
    }
    return n / (Number(process.hrtime.bigint() - start) / 1e9);
  };
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const typical = median([rate(renderTypical), rate(renderTypical), rate(renderTypical)]);
  const large = [];
  for (let i = 0; i < c.rounds; i++) {
    const start = process.hrtime.bigint();
    const out = interpolate(c.large, c.large_variables);
    large.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (out.includes("{{")) throw new Error("unresolved placeholders in the large template");
  }
  console.log(JSON.stringify({ typical, large_ms: median(large), first_large_ms: large[0] }));
});
