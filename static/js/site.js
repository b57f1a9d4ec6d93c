// Progressive enhancement only: every page works without this file.
// A live character counter under the status box.
//
// It counts as the server does (socialsite/repository/entities.py: link_spans and
// weighted_length): characters are code points, every link counts as 23 however long
// it is, and links are found by the same rules. The server has the last word; the two
// are kept in step by tests/test_entities_browser.py.
(function () {
  var box = document.querySelector("textarea[data-max-length]");
  var counter = document.querySelector(".status-form .counter");
  if (!box || !counter) return;
  var max = parseInt(box.getAttribute("data-max-length"), 10);

  var URL_WEIGHT = 23;
  var SCHEME = /^[Hh][Tt][Tt][Pp][Ss]?:\/\//;
  var LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
  var HOST_CHARACTER = /^[\p{L}\p{M}\p{N}._-]$/u;
  // What ends a link: spaces, C0 and C1 controls, the byte-order mark, <, > and ".
  var STOP = /^[\s\u0000-\u001f\u007f-\u009f\ufeff<>"]$/;
  var TRAILING = ".,:;!?'";
  var OPENER = { ")": "(", "]": "[" };
  var PORT = /^([\s\S]*):([0-9]{1,5})$/;

  function count(chars, start, end, char) {
    var n = 0;
    for (var i = start; i < end; i++) if (chars[i] === char) n++;
    return n;
  }

  // Back past punctuation that ends a sentence, and brackets that close nothing.
  function trimTrailing(chars, bodyStart, end) {
    while (end > bodyStart) {
      var last = chars[end - 1];
      if (last.length === 1 && TRAILING.indexOf(last) >= 0) {
        end--;
      } else if (OPENER.hasOwnProperty(last)) {
        if (count(chars, bodyStart, end, OPENER[last]) >= count(chars, bodyStart, end, last)) break;
        end--;
      } else {
        break;
      }
    }
    return end;
  }

  function isHost(rest) {
    var authority = rest.split(/[\/?#]/)[0];
    var port = PORT.exec(authority);
    if (port) authority = port[1];
    var chars = Array.from(authority);
    if (!chars.length || !LETTER_OR_DIGIT.test(chars[0])) return false;
    return chars.every(function (char) { return HOST_CHARACTER.test(char); });
  }

  // [start, end) of each link, in code points.
  function linkSpans(chars) {
    var spans = [];
    var i = 0;
    while (i < chars.length) {
      var scheme = (chars[i] === "h" || chars[i] === "H") && SCHEME.exec(chars.slice(i, i + 8).join(""));
      if (!scheme) { i++; continue; }
      var start = i;
      var bodyStart = i + scheme[0].length;
      i = bodyStart;
      if (spans.length && start < spans[spans.length - 1][1]) continue;
      if (start > 0 && LETTER_OR_DIGIT.test(chars[start - 1])) continue;
      var end = bodyStart;
      while (end < chars.length && !STOP.test(chars[end])) end++;
      end = trimTrailing(chars, bodyStart, end);
      if (isHost(chars.slice(bodyStart, end).join(""))) spans.push([start, end]);
    }
    return spans;
  }

  function weightedLength(text) {
    var chars = Array.from(text);
    return linkSpans(chars).reduce(function (length, span) {
      return length + URL_WEIGHT - (span[1] - span[0]);
    }, chars.length);
  }

  function update() {
    // Django's form strips the text's ends before counting it.
    var left = max - weightedLength(box.value.trim());
    counter.textContent = left + " left";
    counter.classList.toggle("over", left < 0);
  }
  box.addEventListener("input", update);
  update();
})();
