// Progressive enhancement of the status component (templates/_status.html) and the
// more menus (templates/_menu.html); every page works without this file.
//
// - A more menu (<details class="menu">) closes on Escape (the focus goes back to its
//   button), on a click elsewhere, and when another opens.
// - "Copy link" in a status's menu copies the status's address instead of opening it.
// - Relative times ("5m") stay fresh: redone every minute from <time datetime>, by the
//   rules of timeline/jinja_helpers.py reltime (older than a week: left as it is).
// Listeners sit on the document, so statuses the live page adds (live.js) have them too.
(function () {
  function openMenus() {
    return document.querySelectorAll("details.menu[open]");
  }

  function close(menu, focus) {
    menu.open = false;
    if (focus) menu.querySelector("summary").focus();
  }

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    var menu = event.target.closest && event.target.closest("details.menu[open]");
    if (menu) {
      event.preventDefault();
      close(menu, true);
    }
  });

  document.addEventListener("click", function (event) {
    var inside = event.target.closest("details.menu");
    openMenus().forEach(function (menu) {
      if (menu !== inside) close(menu, false);
    });
  });

  document.addEventListener("toggle", function (event) {
    var menu = event.target;
    if (!menu.matches || !menu.matches("details.menu") || !menu.open) return;
    openMenus().forEach(function (other) {
      if (other !== menu) close(other, false);
    });
  }, true);

  document.addEventListener("click", function (event) {
    var link = event.target.closest("a.copy-link");
    if (!link || !navigator.clipboard || !window.isSecureContext) return;
    event.preventDefault();
    var label = link.lastChild;
    navigator.clipboard.writeText(new URL(link.getAttribute("href"), location.href).href).then(
      function () {
        label.textContent = " Link copied";
        setTimeout(function () {
          label.textContent = " Copy link";
          var menu = link.closest("details.menu");
          if (menu) close(menu, true);
        }, 1200);
      },
      function () { location.href = link.href; }
    );
  });

  function relative(posted, now) {
    var seconds = (now - posted) / 1000;
    if (seconds < 60) return "now";
    if (seconds < 3600) return Math.floor(seconds / 60) + "m";
    if (seconds < 86400) return Math.floor(seconds / 3600) + "h";
    if (seconds < 7 * 86400) return Math.floor(seconds / 86400) + "d";
    return null;
  }

  function refresh() {
    var now = Date.now();
    document.querySelectorAll(".status-head .when time[datetime]").forEach(function (time) {
      var text = relative(Date.parse(time.getAttribute("datetime")), now);
      if (text !== null && time.textContent !== text) time.textContent = text;
    });
  }
  setInterval(refresh, 60 * 1000);
})();

// The settings page's time zone (templates/timeline/settings.html): offer this
// device's own zone when the one saved differs, and choose it on "Use it".
(function () {
  var form = document.querySelector(".time-zone-form");
  var offer = form && form.querySelector(".time-zone-offer");
  var select = form && form.querySelector('select[name="time_zone"]');
  if (!offer || !select || !window.Intl) return;
  var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!zone || zone === select.value) return;
  var known = Array.prototype.some.call(select.options, function (option) {
    return option.value === zone;
  });
  if (!known) return;
  offer.querySelector(".zone").textContent = zone;
  offer.hidden = false;
  offer.querySelector("button").addEventListener("click", function () {
    select.value = zone;
    offer.hidden = true;
    select.focus();
  });
})();

// The statuses the live page adds (live.js) come from the stream server with their
// absolute time in UTC: put it in the reader's zone (the page's actions form says it).
(function () {
  var form = document.getElementById("status-actions");
  var zone = form && form.getAttribute("data-time-zone");
  if (!zone || zone === "UTC" || !window.Intl || !window.MutationObserver) return;
  var format;
  try {
    format = new Intl.DateTimeFormat("en-GB", {
      day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit",
      hourCycle: "h23", timeZone: zone, timeZoneName: "short"
    });
  } catch (e) {
    return;
  }
  function fix(root) {
    root.querySelectorAll('a.when[data-full$=" UTC"]').forEach(function (link) {
      var time = link.querySelector("time[datetime]");
      if (!time) return;
      var full = format.format(new Date(time.getAttribute("datetime")));
      link.setAttribute("data-full", full);
      time.setAttribute("title", full);
    });
  }
  new MutationObserver(function (records) {
    records.forEach(function (record) {
      record.addedNodes.forEach(function (node) {
        if (node.nodeType === 1) fix(node.parentNode || node);
      });
    });
  }).observe(document.body, { childList: true, subtree: true });
})();
