// Progressive enhancement only: every page works without this file.
// A live character counter under the status box.
(function () {
  var box = document.querySelector("textarea[data-max-length]");
  var counter = document.querySelector(".status-form .counter");
  if (!box || !counter) return;
  var max = parseInt(box.getAttribute("data-max-length"), 10);
  function update() {
    var left = max - Array.from(box.value).length;
    counter.textContent = left + " left";
    counter.classList.toggle("over", left < 0);
  }
  box.addEventListener("input", update);
  update();
})();
