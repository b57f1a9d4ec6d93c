// megalodon against the site: node client.mjs <site URL> <access token>.
// detector() finds what the server is from its NodeInfo; the client reads the user,
// the notifications one by one (v1) and grouped (v2: megalodon 10 has no method of
// its own for them, so its own HTTP client asks), then opens the user stream over
// the stream server's WebSocket and posts until its status comes down it. Prints one
// JSON object the Python test checks (tests/test_api_megalodon.py).
import generator, { detector } from "megalodon";

const [url, accessToken] = process.argv.slice(2);
const sns = await detector(url);
const client = generator(sns, url, accessToken);
const me = (await client.verifyAccountCredentials()).data;
const notifications = (await client.getNotifications({ limit: 30 })).data;
const grouped = (await client.client.get("/api/v2/notifications", { limit: 40 })).data;
const unread = (await client.client.get("/api/v2/notifications/unread_count")).data;

const stream = await client.userStreaming();
const streamed = await new Promise((resolve, reject) => {
  const posted = new Set();
  const heard = new Map(); // id -> status: a status may come down the stream before
  // the answer to its POST comes back
  let attempts = 0;
  const timer = setTimeout(() => reject(new Error("timed out: the stream")), 60000);
  const done = (status) => {
    clearTimeout(timer);
    resolve(status);
  };
  stream.on("error", (error) => reject(error ?? new Error("stream error")));
  stream.on("update", (status) => {
    heard.set(status.id, status);
    if (posted.has(status.id)) done(status);
  });
  // The subscription may still be on its way when the first status is posted: post
  // probes until one comes back.
  stream.on("connect", async () => {
    while (attempts++ < 30) {
      const id = (await client.postStatus(`from megalodon ${attempts}`)).data.id;
      posted.add(id);
      if (heard.has(id)) return done(heard.get(id));
      await new Promise((wait) => setTimeout(wait, 1000));
    }
  });
});
stream.stop();

console.log(
  JSON.stringify({
    sns,
    account: me.username,
    createdAt: me.created_at,
    notifications: notifications.map((n) => [n.type, n.account.username]),
    groups: grouped.notification_groups.map((g) => [g.type, g.notifications_count, g.group_key]),
    groupedAccounts: grouped.accounts.map((a) => a.username).sort(),
    unread: unread.count,
    streamed: { id: streamed.id, account: streamed.account.username },
  }),
);
process.exit(0);
