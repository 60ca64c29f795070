// The trivial-handler baseline: bare Node http parsing a JSON body and answering JSON. The ceiling the
// machine allows for any HTTP API; Parley's figures are read against it.
import { createServer } from "node:http";

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    let parsed = {};
    try {
      parsed = JSON.parse(Buffer.concat(chunks).toString() || "{}");
    } catch {
      // the baseline answers anyway
    }
    const body = JSON.stringify({ status: "ok", statusCode: 200, data: { echo: Object.keys(parsed).length } });
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, "127.0.0.1", () => console.log(`BASELINE_READY ${server.address().port}`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
