// A conversation's page, kept live: GET /live/messages on the stream server (the
// site's session cookie says who this is) sends "event: direct" with
// {"conversation": N, "message": M, "count": C, "version": V} for each new message in
// any of the reader's conversations. A message of this conversation newer than the
// last shown makes the page fetch ?after=<last shown> (the same page, its newer
// messages only) and append them; reading it there marks it read. The badge beside
// "Messages" takes the count. Without JavaScript the page is whole; a reload shows new
// messages.
(function () {
  "use strict";
  var list = document.getElementById("messages");
  if (!list || !window.EventSource || !window.fetch) return;
  var conversation = Number(list.getAttribute("data-conversation"));
  var fetching = false, again = false;

  function lastShown() {
    var last = 0;
    list.querySelectorAll("li[data-id]").forEach(function (item) {
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
        var empty = list.querySelector("li.empty");
        page.querySelectorAll("#messages li[data-id]").forEach(function (item) {
          if (document.getElementById(item.id)) return;
          if (empty) { empty.remove(); empty = null; }
          list.appendChild(document.importNode(item, true));
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

  function setBadge(count, version) {
    document.querySelectorAll(".direct-count").forEach(function (badge) {
      if (version <= Number(badge.getAttribute("data-version") || 0)) return;
      badge.setAttribute("data-version", String(version));
      badge.textContent = count > 99 ? "99+" : String(count);
      badge.hidden = count === 0;
    });
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
