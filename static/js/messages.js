// A conversation's page, kept live: GET /live/messages on the stream server (the
// site's session cookie says who this is) sends "event: direct" with
// {"conversation": N, "message": M, "count": C, "version": V} for each new message in
// any of the reader's conversations. A message of this conversation newer than the
// last shown makes the page fetch ?after=<last shown> (the same page, its newer
// messages only) and append them; reading it there marks it read. An appended message
// joins the group of the one before it (same sender, same day, within
// CHAT_GROUP_SECONDS, as timeline/jinja_helpers.chat_rows groups them) and brings its
// day separator only on a new day. The badge beside "Messages" takes the count. On
// load the page shows its newest messages and the composer (unless the address names
// a message). Without JavaScript the page is whole; a reload shows new messages.
(function () {
  "use strict";
  var list = document.getElementById("messages");
  if (!list || !window.EventSource || !window.fetch) return;
  var conversation = Number(list.getAttribute("data-conversation"));
  var fetching = false, again = false;
  var CHAT_GROUP_SECONDS = 5 * 60;  // timeline/jinja_helpers.py's

  function lastShown() {
    var last = 0;
    list.querySelectorAll(".direct-message[data-id]").forEach(function (item) {
      last = Math.max(last, Number(item.getAttribute("data-id")) || 0);
    });
    return last;
  }

  function streamUrl() {
    var base = list.getAttribute("data-stream-url");
    if (!base) {
      base = location.protocol + "//" + location.hostname + ":" +
        list.getAttribute("data-stream-port");
    }
    return new URL(base.replace(/\/+$/, "") + "/live/messages", location.href).href;
  }

  function fetchNewer() {
    if (fetching) { again = true; return; }
    fetching = true;
    var url = location.pathname + "?after=" + lastShown();
    fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (response) { return response.ok ? response.text() : ""; })
      .then(function (html) {
        if (!html) return;
        var page = new DOMParser().parseFromString(html, "text/html");
        var empty = list.querySelector(".empty");
        var day = null;  // the fetched page's day separator waiting for its message
        page.querySelectorAll("#messages > .chat-day, #messages > .direct-message[data-id]").forEach(function (item) {
          if (item.classList.contains("chat-day")) { day = item; return; }
          if (document.getElementById(item.id)) return;
          if (empty) { empty.remove(); empty = null; }
          append(item, day);
          day = null;
        });
        // The page's own CSRF token in the forms that came with the new messages.
        var token = document.querySelector("input[name=csrfmiddlewaretoken]");
        if (token) {
          list.querySelectorAll("input[name=csrfmiddlewaretoken]").forEach(function (input) {
            input.value = token.value;
          });
        }
        var badge = page.querySelector(".direct-count[data-version]");
        if (badge) setBadge(Number(badge.textContent) || 0, Number(badge.getAttribute("data-version")));
      })
      .catch(function () {})
      .then(function () {
        fetching = false;
        if (again) { again = false; fetchNewer(); }
      });
  }

  // Appends ``item`` (a message of the fetched page) after the last message shown:
  // with the day separator ``day`` if it starts a new day, in the group of the one
  // before if it continues it.
  function append(item, day) {
    var messages = list.querySelectorAll(".direct-message[data-id]");
    var last = messages.length ? messages[messages.length - 1] : null;
    var sameDay = last && last.getAttribute("data-day") === item.getAttribute("data-day");
    if (day && !sameDay) list.appendChild(document.importNode(day, true));
    var node = document.importNode(item, true);
    var continued = sameDay &&
      last.getAttribute("data-from") === item.getAttribute("data-from") &&
      Number(item.getAttribute("data-at")) - Number(last.getAttribute("data-at")) <= CHAT_GROUP_SECONDS;
    node.classList.toggle("continued", Boolean(continued));
    list.appendChild(node);
  }

  function setBadge(count, version) {
    document.querySelectorAll(".direct-count").forEach(function (badge) {
      if (version <= Number(badge.getAttribute("data-version") || 0)) return;
      badge.setAttribute("data-version", String(version));
      badge.textContent = count > 99 ? "99+" : String(count);
      badge.hidden = count === 0;
    });
  }

  // The newest messages and the composer in view, unless the address names a message.
  if (!location.hash) {
    var composer = document.querySelector(".chat-composer");
    if (composer && composer.getBoundingClientRect().bottom > window.innerHeight) {
      composer.scrollIntoView({ block: "end" });
    }
  }

  var source = new EventSource(streamUrl(), { withCredentials: true });
  source.addEventListener("direct", function (event) {
    var data = JSON.parse(event.data);
    if (data.conversation === conversation && data.message > lastShown()) {
      fetchNewer();
    } else {
      setBadge(data.count, data.version);
    }
  });
  source.addEventListener("open", function () {
    list.setAttribute("data-live", "connected");
    fetchNewer();  // whatever came while the connection was down
  });
  source.addEventListener("error", function () {
    list.setAttribute("data-live", source.readyState === EventSource.CLOSED ? "closed" : "reconnecting");
  });
})();
