// masto.js reading upward: node paging.mjs <site URL> <access token> <min id>.
// Each paginator starts at min_id and follows the Link header's "prev" (setDirection),
// as an app catching up does; prints the ids each list gave, oldest first, as JSON
// (tests/test_api_masto_js.py).
import { createRestAPIClient } from "masto";

const [url, accessToken, minId] = process.argv.slice(2);
const rest = createRestAPIClient({ url, accessToken, log: "error" });

async function upward(paginator) {
  const seen = [];
  for await (const page of paginator.setDirection("prev")) {
    if (page.length === 0) break;
    seen.push(...page.map((item) => item.id).reverse());
  }
  return seen;
}

console.log(
  JSON.stringify({
    home: await upward(rest.v1.timelines.home.list({ minId, limit: 4 })),
    public: await upward(rest.v1.timelines.public.list({ minId, limit: 4 })),
    notifications: await upward(rest.v1.notifications.list({ minId: "0", limit: 4 })),
  }),
);
