// masto.js against the site: node client.mjs <site URL> <access token> <image file>.
// Logs in with the token, reads home, subscribes to the user stream over the
// stream server's WebSocket, uploads the image and posts a status with it, then
// prints one JSON object the Python test checks (tests/test_api_masto_js.py).
import { readFile } from "node:fs/promises";
import { createRestAPIClient, createStreamingAPIClient } from "masto";

const [url, accessToken, imagePath] = process.argv.slice(2);
const rest = createRestAPIClient({ url, accessToken, log: "error" });

const withTimeout = (promise, ms, what) =>
  Promise.race([
    promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)),
  ]);

const instance = await rest.v2.instance.fetch();
const me = await rest.v1.accounts.verifyCredentials();
const home = await rest.v1.timelines.home.list({ limit: 5 });

const streaming = createStreamingAPIClient({
  streamingApiUrl: instance.configuration.urls.streaming,
  accessToken,
  retry: false,
  log: "error",
});
const subscription = streaming.user.subscribe();
const updates = subscription[Symbol.asyncIterator]();
const seen = new Map();

// The stream is live once a status posted now comes back on it: post probes until one
// does (a subscription's message may still be on its way when the first is posted).
async function nextUpdate() {
  for (;;) {
    const { value, done } = await updates.next();
    if (done) throw new Error("the stream ended");
    if (value.event === "update") return value.payload;
  }
}
let pending = nextUpdate();
const probes = new Set();
for (let attempt = 0; ![...probes].some((id) => seen.has(id)); attempt++) {
  probes.add((await rest.v1.statuses.create({ status: `probe ${attempt}` })).id);
  try {
    while (![...probes].some((id) => seen.has(id))) {
      const status = await withTimeout(pending, 2000, "a probe on the stream");
      pending = nextUpdate();
      seen.set(status.id, status);
    }
  } catch (error) {
    if (attempt >= 30) throw error;
  }
}

const bytes = await readFile(imagePath);
const media = await rest.v2.media.create({
  file: new Blob([bytes], { type: "image/png" }),
  description: "A blue rectangle",
});
const status = await rest.v1.statuses.create({
  status: "With a picture, from masto.js",
  mediaIds: [media.id],
});
while (!seen.has(status.id)) {
  const update = await withTimeout(pending, 15000, "the status on the stream");
  pending = nextUpdate();
  seen.set(update.id, update);
}
const streamed = seen.get(status.id);
const homeAfter = await rest.v1.timelines.home.list({ limit: 5 });
streaming.close();

console.log(
  JSON.stringify({
    account: me.acct,
    home: home.map((s) => s.id),
    media: { id: media.id, type: media.type, url: media.url, blurhash: media.blurhash,
             description: media.description, width: media.meta?.original?.width },
    status: { id: status.id, media: status.mediaAttachments.map((m) => m.id) },
    streamed: { id: streamed.id, media: streamed.mediaAttachments.map((m) => m.url) },
    homeAfter: homeAfter.map((s) => s.id),
  }),
);
process.exit(0);
