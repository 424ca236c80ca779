/**
 * The page's only script, inlined: selects a call (list row, chart column or the
 * URL's #call-N) and shows its panel; arrow keys move between calls. It reads and
 * toggles attributes only, never writes markup.
 */
export const SCRIPT = `
(function(){
  var sections = Array.prototype.slice.call(document.querySelectorAll("section.call"));
  if (sections.length === 0) return;
  var ids = sections.map(function(s){ return s.getAttribute("data-call"); });
  var current = null;
  function select(id, push){
    if (ids.indexOf(id) < 0) return;
    current = id;
    sections.forEach(function(s){ s.classList.toggle("active", s.getAttribute("data-call") === id); });
    document.querySelectorAll("[data-call]").forEach(function(el){
      if (el.tagName !== "SECTION") el.classList.toggle("active", el.getAttribute("data-call") === id);
    });
    var row = document.querySelector(".row[data-call='" + id + "']");
    var list = row ? row.closest(".calls") : null;
    if (list && list.scrollHeight > list.clientHeight) list.scrollTop = Math.max(0, row.offsetTop - list.clientHeight / 2);
    if (push && history.replaceState) history.replaceState(null, "", "#call-" + id);
  }
  document.addEventListener("click", function(event){
    var el = event.target.closest ? event.target.closest("[data-call]") : null;
    if (!el || el.tagName === "SECTION") return;
    event.preventDefault();
    select(el.getAttribute("data-call"), true);
  });
  document.addEventListener("keydown", function(event){
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    if (event.target && /INPUT|TEXTAREA/.test(event.target.tagName)) return;
    var i = ids.indexOf(current) + (event.key === "ArrowDown" ? 1 : -1);
    if (i >= 0 && i < ids.length) { event.preventDefault(); select(ids[i], true); }
  });
  var fromHash = /^#call-(\\d+)$/.exec(location.hash);
  var initial = document.body.getAttribute("data-initial");
  select(fromHash ? fromHash[1] : (initial || ids[ids.length - 1]), false);
})();
`;
